import type { CoreContext } from '../../../core/context.js';
import { readScopes, writeScopes } from '../../../core/polar-api/scopes.js';
import { refundCreateSchema, refundListQuery, refundListSchema, refundSchema } from '../../../core/refunds/schemas.js';
import type { V1Api } from './operation.js';

const tag = 'refunds';

export function registerRefundsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.refunds;
  api.op(
    {
      method: 'get',
      path: '/v1/refunds/',
      operationId: 'refunds:list',
      tag,
      summary:
        'List refunds (filters: id, organization_id, order_id, subscription_id, customer_id, external_customer_id, succeeded)',
      scopes: readScopes(tag),
      query: refundListQuery,
      response: refundListSchema,
    },
    ({ actor, query }) => service.list(actor, query),
  );
  api.op(
    {
      method: 'post',
      path: '/v1/refunds/',
      operationId: 'refunds:create',
      tag,
      summary: 'Refund (part of) an order: amount is the net amount, its tax is refunded with it in proportion',
      scopes: writeScopes(tag),
      body: refundCreateSchema,
      response: refundSchema,
      status: 201,
    },
    ({ actor, body }) => service.create(actor, body),
  );
}
