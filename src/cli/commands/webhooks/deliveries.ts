import type { WebhookDeliveryWire } from '../../../core/webhooks/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printTable } from '../../output.js';
import type { Page } from '../../pages.js';

interface Options {
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

export async function list({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.failed && opts.succeeded) throw new UsageError('give --failed or --succeeded, not both');
  const query = new URLSearchParams({ page: opts.page, limit: opts.limit });
  for (const id of opts.endpoint ?? []) query.append('endpoint_id', id);
  for (const type of opts.eventType ?? []) query.append('event_type', type);
  if (opts.failed) query.set('succeeded', 'false');
  if (opts.succeeded) query.set('succeeded', 'true');
  if (opts.since) query.set('start_timestamp', opts.since);
  if (opts.until) query.set('end_timestamp', opts.until);
  const page = await call<Page<WebhookDeliveryWire>>(signedIn(globals), 'GET', `/v1/webhooks/deliveries?${query}`);
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
