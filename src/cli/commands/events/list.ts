import type { EventWire } from '../../../core/events/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { pageParams, type Page } from '../../pages.js';

interface Options {
  customer?: string;
  externalCustomer?: string;
  name?: string;
  meter?: string;
  source?: string;
  limit?: string;
  org?: string;
  allOrgs?: boolean;
  json?: boolean;
}

/** One page, newest first: an organization may hold millions of events, so this never fetches them all. */
export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.customer) query.set('customer_id', opts.customer);
  if (opts.externalCustomer) query.set('external_customer_id', opts.externalCustomer);
  if (opts.name) query.set('name', opts.name);
  if (opts.meter) query.set('meter_id', opts.meter);
  if (opts.source) query.set('source', opts.source);
  pageParams(query, { limit: opts.limit });
  await orgFilter(target, query, opts);
  const page = await call<Page<EventWire>>(target, 'GET', `/v1/events/?${query}`);
  if (opts.json) {
    printJson(page.items);
    return;
  }
  printTable(
    ['TIMESTAMP', 'NAME', 'CUSTOMER', 'METADATA', 'ID'],
    page.items.map((event) => [
      event.timestamp,
      event.name,
      event.customer_id ?? `external:${event.external_customer_id ?? ''}`,
      Object.entries(event.metadata)
        .map(([key, value]) => `${key}=${metadataText(key, value)}`)
        .join(' '),
      event.id,
    ]),
  );
}

/** A metadata value in a table cell: Polar's structured keys in short (an LLM call's prompt and response left out). */
function metadataText(key: string, value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const fields = value as Record<string, unknown>;
  if (key === '_llm')
    return `{${String(fields.vendor)}/${String(fields.model)}, ${String(fields.total_tokens)} tokens}`;
  if (key === '_cost') return `{${String(fields.amount)} cents ${String(fields.currency)}}`;
  return JSON.stringify(value);
}
