import type { WebhookDeliveryWire, WebhookEndpointWire } from '../../../core/webhooks/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn, type OrgChoice, type Target } from '../../context.js';
import { UsageError } from '../../errors.js';
import { isoTimeFlag, wholeNumberFlag } from '../../flags.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll, type Page } from '../../pages.js';

interface Options extends OrgChoice {
  endpoint?: string[];
  eventType?: string[];
  failed?: boolean;
  succeeded?: boolean;
  since?: string;
  until?: string;
  page: string;
  limit: string;
  json?: boolean;
}

/**
 * Deliveries have no organization filter (nor in Polar): without --endpoint, the acting organization's endpoints are
 * the filter. False when that organization has no endpoint, so no delivery can be its.
 */
async function scopeToOrg(target: Target, query: URLSearchParams, opts: Options): Promise<boolean> {
  if (opts.endpoint?.length) return true;
  const scope = new URLSearchParams();
  await orgFilter(target, scope, opts);
  if (!scope.has('organization_id')) return true;
  const endpoints = await fetchAll<WebhookEndpointWire>(target, '/v1/webhooks/endpoints', scope);
  for (const endpoint of endpoints) query.append('endpoint_id', endpoint.id);
  return endpoints.length > 0;
}

export async function list({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.failed && opts.succeeded) throw new UsageError('give --failed or --succeeded, not both');
  const query = new URLSearchParams({
    page: String(wholeNumberFlag('--page', opts.page, 1)),
    limit: String(wholeNumberFlag('--limit', opts.limit, 1, 100)),
  });
  for (const id of opts.endpoint ?? []) query.append('endpoint_id', id);
  for (const type of opts.eventType ?? []) query.append('event_type', type);
  if (opts.failed) query.set('succeeded', 'false');
  if (opts.succeeded) query.set('succeeded', 'true');
  if (opts.since !== undefined) query.set('start_timestamp', isoTimeFlag('--since', opts.since));
  if (opts.until !== undefined) query.set('end_timestamp', isoTimeFlag('--until', opts.until));
  const target = signedIn(globals);
  const page = (await scopeToOrg(target, query, opts))
    ? await call<Page<WebhookDeliveryWire>>(target, 'GET', `/v1/webhooks/deliveries?${query}`)
    : { items: [], pagination: { total_count: 0, max_page: 0 } };
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['TIME', 'EVENT', 'TYPE', 'ATTEMPT', 'OK', 'HTTP', 'MS', 'RESPONSE'],
    page.items.map((delivery) => [
      delivery.created_at,
      delivery.webhook_event.id,
      delivery.webhook_event.type,
      String(delivery.attempt),
      delivery.succeeded ? 'yes' : 'no',
      delivery.http_code === null ? '-' : String(delivery.http_code),
      String(delivery.duration_ms),
      (delivery.response ?? '').replace(/\s+/g, ' ').slice(0, 60),
    ]),
  );
}
