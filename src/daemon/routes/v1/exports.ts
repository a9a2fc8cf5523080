import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { CoreContext } from '../../../core/context.js';
import { customerExportQuery, orderExportQuery, subscriptionExportQuery } from '../../../core/exports/inputs.js';
import { readScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

/**
 * Polar's CSV exports. Registered before the resources' `/:id` routes, which would otherwise take `export` for an id.
 * The body is streamed as the service produces it, batch by batch, so a million rows never sit in memory; the first
 * batch is read before answering, so a failing query is still an error response rather than a cut-off file.
 */
export function registerExportsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.exports;
  const csvDescription = 'A CSV file (text/csv), header line first.';
  api.op(
    {
      method: 'get',
      path: '/v1/orders/export',
      operationId: 'orders:export',
      tag: 'orders',
      summary: 'Export orders as a CSV file (filters: organization_id, product_id, status, created_after/before)',
      scopes: readScopes('orders'),
      query: orderExportQuery,
      responseDescription: csvDescription,
    },
    ({ ctx, actor, query }) => send(ctx, 'orders', service.orders(actor, query)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/subscriptions/export',
      operationId: 'subscriptions:export',
      tag: 'subscriptions',
      summary:
        'Export subscriptions as a CSV file (filters: organization_id, product_id, status, cancel_at_period_end, started_after/before)',
      scopes: readScopes('subscriptions'),
      query: subscriptionExportQuery,
      responseDescription: csvDescription,
    },
    ({ ctx, actor, query }) => send(ctx, 'subscriptions', service.subscriptions(actor, query)),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customers/export',
      operationId: 'customers:export',
      tag: 'customers',
      summary: 'Export customers as a CSV file',
      scopes: readScopes('customers'),
      query: customerExportQuery,
      responseDescription: csvDescription,
    },
    ({ ctx, actor, query }) => send(ctx, 'customers', service.customers(actor, query)),
  );
}

async function send(ctx: Context, name: string, lines: AsyncGenerator<string>): Promise<undefined> {
  const header = await lines.next();
  const first = await lines.next();
  async function* rest(): AsyncGenerator<string> {
    if (!header.done) yield header.value;
    if (first.done) return;
    yield first.value;
    yield* lines;
  }
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${name}.csv"`);
  ctx.body = Readable.from(rest());
  return undefined;
}
