import type { CustomerWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { CUSTOMER_HEADERS, customerCells, parseMetadata } from './shared.js';

interface Options {
  email?: string;
  query?: string;
  metadata?: string[];
  org?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams({ limit: '100' });
  if (opts.email) query.set('email', opts.email);
  if (opts.query) query.set('query', opts.query);
  for (const [key, value] of Object.entries(parseMetadata(opts.metadata) ?? {})) query.append(`metadata[${key}]`, value);
  if (opts.org !== undefined) query.set('organization_id', (await resolveOrg(target, opts.org)).id);
  // Every page: a list that silently stopped at 100 would mislead scripts.
  const customers: CustomerWire[] = [];
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const result = await call<{ items: CustomerWire[]; pagination: { max_page: number } }>(target, 'GET', `/v1/customers/?${query}`);
    customers.push(...result.items);
    if (page >= result.pagination.max_page) break;
  }
  if (opts.json) {
    printJson(customers);
    return;
  }
  printTable(CUSTOMER_HEADERS, customers.map(customerCells));
}
