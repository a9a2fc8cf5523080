import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { printJson, printTable } from '../../output.js';
import { pageParams, type Page } from '../../pages.js';
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

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const params = new URLSearchParams();
  pageParams(params, opts);
  if (opts.all && opts.page !== undefined) throw new UsageError('--all reads every page; leave out --page');
  if (opts.query !== undefined) params.set('query', opts.query);
  if (opts.archived !== undefined) params.set('is_archived', String(opts.archived));
  if (opts.recurring !== undefined) params.set('is_recurring', String(opts.recurring));
  for (const id of opts.benefit ?? []) params.append('benefit_id', id);
  for (const [key, value] of Object.entries(parseTypedMetadata(opts.metadata) ?? {}))
    params.append(`metadata[${key}]`, String(value));
  for (const sort of opts.sort ?? []) params.append('sorting', sort);
  const target = signedIn(globals);
  await orgFilter(target, params, opts);

  const items: ProductWire[] = [];
  let page = Number(opts.page ?? 1);
  let answer: Page<ProductWire>;
  do {
    params.set('page', String(page));
    answer = await call<Page<ProductWire>>(target, 'GET', `/v1/products/?${params}`);
    items.push(...answer.items);
    page += 1;
  } while (opts.all && page <= answer.pagination.max_page);

  if (opts.json) {
    printJson(opts.all ? { items, pagination: answer.pagination } : answer);
    return;
  }
  printTable(
    ['ID', 'NAME', 'BILLING', 'PRICE', 'ARCHIVED', 'CREATED'],
    items.map((product) => [
      product.id,
      product.name,
      billing(product),
      priceSummary(product),
      product.is_archived ? 'yes' : 'no',
      product.created_at,
    ]),
  );
}
