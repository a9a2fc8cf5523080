import type { z } from 'zod';
import type { paginationSchema } from '../core/polar-api/schemas.js';
import { call, orgFilter, signedIn, type GlobalOptions, type OrgChoice, type Target } from './context.js';
import { wholeNumberFlag } from './flags.js';

/** One page of a /v1 list, as the daemon answers it. */
export interface Page<T> {
  items: T[];
  pagination: z.output<typeof paginationSchema>;
}

/** Every page of a /v1 list: a list that silently stopped at 100 would mislead scripts. */
export async function fetchAll<T>(
  target: Target,
  path: string,
  query: URLSearchParams = new URLSearchParams(),
): Promise<T[]> {
  const items: T[] = [];
  query.set('limit', '100');
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const result = await call<Page<T>>(target, 'GET', `${path}?${query}`);
    items.push(...result.items);
    if (page >= result.pagination.max_page) break;
  }
  return items;
}

/** `--page` and `--limit` as typed, checked before anything is sent, onto a /v1 list's query. */
export function pageParams(params: URLSearchParams, opts: { page?: string; limit?: string }): void {
  if (opts.page !== undefined) params.set('page', String(wholeNumberFlag('--page', opts.page, 1)));
  if (opts.limit !== undefined) params.set('limit', String(wholeNumberFlag('--limit', opts.limit, 1, 100)));
}

/** The filters of a catalog list whose items have types (benefits, custom fields), and the page wanted. */
export interface TypedListOptions extends OrgChoice {
  type?: string[];
  query?: string;
  page?: string;
  limit?: string;
}

/** One page of such a list, as the daemon answers it (its --json output). */
export async function typedListPage<T>(globals: GlobalOptions, path: string, opts: TypedListOptions): Promise<Page<T>> {
  const params = new URLSearchParams();
  for (const type of opts.type ?? []) params.append('type', type);
  if (opts.query !== undefined) params.set('query', opts.query);
  pageParams(params, opts);
  const target = signedIn(globals);
  await orgFilter(target, params, opts);
  const query = params.toString() ? `?${params}` : '';
  return call<Page<T>>(target, 'GET', `${path}${query}`);
}
