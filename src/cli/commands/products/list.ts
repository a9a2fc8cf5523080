import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printTable } from '../../output.js';
import { parseMetadata } from '../benefits/shared.js';
import { billing, priceSummary } from './shared.js';

interface Options {
  org?: string;
  query?: string;
  archived?: boolean;
  recurring?: boolean;
  benefit?: string[];
  metadata?: string[];
  sort?: string[];
  page?: string;
  limit?: string;
  all?: boolean;
  json?: boolean;
}

interface Page {
  items: ProductWire[];
  pagination: { total_count: number; max_page: number };
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const params = new URLSearchParams();
  for (const [flag, value] of [['--page', opts.page], ['--limit', opts.limit]] as const) {
    if (value !== undefined && !/^[1-9]\d*$/.test(value)) throw new UsageError(`${flag} takes a positive whole number (got "${value}")`);
  }
  if (opts.all && opts.page !== undefined) throw new UsageError('--all reads every page; leave out --page');
  if (opts.query !== undefined) params.set('query', opts.query);
  if (opts.archived !== undefined) params.set('is_archived', String(opts.archived));
  if (opts.recurring !== undefined) params.set('is_recurring', String(opts.recurring));
  for (const id of opts.benefit ?? []) params.append('benefit_id', id);
  for (const [key, value] of Object.entries(parseMetadata(opts.metadata) ?? {})) params.append(`metadata[${key}]`, String(value));
  for (const sort of opts.sort ?? []) params.append('sorting', sort);
  if (opts.limit !== undefined) params.set('limit', opts.limit);
  const target = signedIn(globals);
  if (opts.org !== undefined) params.set('organization_id', (await resolveOrg(target, opts.org)).id);

  const items: ProductWire[] = [];
  let page = Number(opts.page ?? 1);
  let answer: Page;
  do {
    params.set('page', String(page));
    answer = await call<Page>(target, 'GET', `/v1/products/?${params}`);
    items.push(...answer.items);
    page += 1;
  } while (opts.all && page <= answer.pagination.max_page);

  if (opts.json) {
    printJson(opts.all ? { items, pagination: answer.pagination } : answer);
    return;
  }
  printTable(
    ['ID', 'NAME', 'BILLING', 'PRICE', 'ARCHIVED', 'CREATED'],
    items.map((product) => [product.id, product.name, billing(product), priceSummary(product), product.is_archived ? 'yes' : 'no', product.created_at]),
  );
}
