import type { CustomerWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { parseMetadata } from '../../metadata.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';
import { CUSTOMER_HEADERS, customerCells } from './shared.js';

interface Options {
  email?: string;
  query?: string;
  metadata?: string[];
  org?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.email) query.set('email', opts.email);
  if (opts.query) query.set('query', opts.query);
  for (const [key, value] of Object.entries(parseMetadata(opts.metadata) ?? {}))
    query.append(`metadata[${key}]`, value);
  await orgFilter(target, query, opts);
  const customers = await fetchAll<CustomerWire>(target, '/v1/customers/', query);
  if (opts.json) {
    printJson(customers);
    return;
  }
  printTable(CUSTOMER_HEADERS, customers.map(customerCells));
}
