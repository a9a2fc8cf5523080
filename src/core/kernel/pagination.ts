import type { Knex } from 'knex';
import { z } from 'zod';

/** Polar's page size: 10 by default, anything above 100 silently capped. */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

/** A query parameter that may be given once or repeated (`?id=a&id=b`), always read as a list. */
export function repeated<S extends z.ZodType>(item: S) {
  return z
    .union([item, z.array(item)])
    .transform((value) => (Array.isArray(value) ? value : [value]) as Array<z.output<S>>);
}

/**
 * A filter on ids of rows keyed by UUID: a malformed id is a 422 at its parameter, as in Polar (PostgreSQL would
 * otherwise refuse to compare it with a uuid column).
 */
export function uuidFilter() {
  return repeated(z.uuid({ message: 'Input should be a valid UUID' }));
}

export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_PAGE_SIZE)
    .transform((limit) => Math.min(limit, MAX_PAGE_SIZE)),
};

/**
 * `sorting` as Polar takes it: repeatable, each a field name with an optional leading `-` for descending. Unknown
 * fields are a 422 at `["query","sorting"]`.
 */
export function sortingQuery<F extends string>(fields: readonly F[], fallback: string[] = ['-created_at']) {
  const allowed = new Set<string>(fields.flatMap((field) => [field, `-${field}`]));
  return repeated(
    z
      .string()
      .refine((value) => allowed.has(value), { message: `Sorting criterion must be one of: ${fields.join(', ')}` }),
  )
    .optional()
    .transform((value) => (value && value.length > 0 ? value : fallback));
}

export interface ListOptions {
  page: number;
  limit: number;
  sorting: string[];
}

/**
 * Runs a filtered query as one page plus its total count. `columns` maps each sortable wire field to its column;
 * the primary key breaks ties so pages never overlap.
 */
export async function paginate<Row>(
  query: Knex.QueryBuilder,
  options: ListOptions,
  columns: Record<string, string>,
  tieBreaker = 'id',
): Promise<{ rows: Row[]; pagination: Page<unknown>['pagination'] }> {
  const countRow = (await query.clone().clearSelect().clearOrder().count({ n: '*' }).first()) as
    { n: number | string } | undefined;
  const total = Number(countRow?.n ?? 0);
  const ordered = query.clone();
  for (const criterion of options.sorting) {
    const descending = criterion.startsWith('-');
    const column = columns[descending ? criterion.slice(1) : criterion];
    if (column) ordered.orderBy(column, descending ? 'desc' : 'asc');
  }
  ordered.orderBy(tieBreaker, 'asc');
  const rows = (await ordered.limit(options.limit).offset(options.limit * (options.page - 1))) as Row[];
  return { rows, pagination: { total_count: total, max_page: Math.ceil(total / options.limit) } };
}
