import type { Knex } from 'knex';
import { dialect, type Db } from '../database/index.js';
import { GAUGE_COLUMNS, METRIC_COLUMNS, type MetricColumn } from './contributions.js';

/** What a query covers: each organization in its own currency, and the optional filters. */
export interface RollupScope {
  organizations: ReadonlyArray<{ id: string; currency: string }>;
  productIds?: readonly string[];
  billingTypes?: readonly string[];
  customerIds?: readonly string[];
}

export type Sums = Record<MetricColumn, number>;
type Range = readonly [period: number, from: number, to: number];

function scoped(query: Knex.QueryBuilder, scope: RollupScope, table: string): Knex.QueryBuilder {
  query.where((where) => {
    for (const organization of scope.organizations)
      where.orWhere({ [`${table}.organization_id`]: organization.id, [`${table}.currency`]: organization.currency });
  });
  if (scope.customerIds) query.whereIn(`${table}.customer_id`, scope.customerIds);
  if (scope.productIds) query.whereIn(`${table}.product_id`, scope.productIds);
  if (scope.billingTypes) query.whereIn(`${table}.billing_type`, scope.billingTypes);
  return query;
}

const sums = (db: Db, table: string, columns: readonly MetricColumn[]) =>
  columns.map((column) => db.raw(`SUM(${table}.${column}) AS ${column}`));

function numbers(row: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value === null ? 0 : Number(value);
  return out;
}

/**
 * Sums per period over ranges of one table's time column: one index range per range, and one row back per period
 * (reading a row per hour back into JavaScript would cost more than the sums).
 */
async function sumRanges(
  db: Db,
  scope: RollupScope,
  table: string,
  time: string,
  ranges: readonly Range[],
): Promise<Array<{ period: number } & Sums>> {
  if (ranges.length === 0) return [];
  // Typed, since PostgreSQL reads untyped parameters in VALUES as text.
  const values = ranges.map(() => '(CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS INTEGER))').join(', ');
  const withRanges = db
    .with('ranges', ['period', 'time_from', 'time_to'], db.raw(`VALUES ${values}`, ranges.flat()))
    .from('ranges');
  const inRange = (query: Knex.QueryBuilder) =>
    scoped(query, scope, table)
      .where(`${table}.${time}`, '>=', db.ref('ranges.time_from'))
      .where(`${table}.${time}`, '<', db.ref('ranges.time_to'));
  // Ranges as the outer loop, each one a range of the key: PostgreSQL is told so by LATERAL, SQLite by the order of
  // a CROSS JOIN (which its planner keeps).
  const rows =
    dialect(db) === 'postgres'
      ? await withRanges
          .crossJoin(db.raw('LATERAL ? AS sums', [inRange(db(table)).select(...sums(db, table, METRIC_COLUMNS))]))
          .select('ranges.period', 'sums.*')
      : await inRange(withRanges.crossJoin(db.raw('??', [table])))
          .select('ranges.period', ...sums(db, table, METRIC_COLUMNS))
          .groupBy('ranges.period');
  return rows.map((row: Record<string, unknown>) => numbers(row) as { period: number } & Sums);
}

/**
 * Sums per period, the periods given as ranges of UTC hours [from, to). The whole UTC days inside a period are read
 * from the daily buckets, its edges from the hourly ones; a customer filter reads the per-source rows (hourly, and
 * the only ones that know the customer).
 */
export async function sumsByPeriod(
  db: Db,
  scope: RollupScope,
  periods: ReadonlyArray<readonly [number, number]>,
): Promise<Array<{ period: number } & Sums>> {
  if (scope.organizations.length === 0) return [];
  if (scope.customerIds)
    return sumRanges(
      db,
      scope,
      'metrics_source_deltas',
      'hour',
      periods.map(([from, to], i) => [i, from, to]),
    );
  const days: Range[] = [];
  const hours: Range[] = [];
  periods.forEach(([from, to], period) => {
    const firstDay = Math.ceil(from / 24);
    const endDay = Math.floor(to / 24);
    if (firstDay >= endDay) {
      hours.push([period, from, to]);
      return;
    }
    days.push([period, firstDay, endDay]);
    if (from < firstDay * 24) hours.push([period, from, firstDay * 24]);
    if (endDay * 24 < to) hours.push([period, endDay * 24, to]);
  });
  const [byDay, byHour] = await Promise.all([
    sumRanges(db, scope, 'metrics_days', 'day', days),
    sumRanges(db, scope, 'metrics_buckets', 'hour', hours),
  ]);
  return [...byDay, ...byHour];
}

/** The gauges' levels at the start of `hour`: all their changes before it (whole days, then that day's hours). */
export async function gaugesBefore(db: Db, scope: RollupScope, hour: number): Promise<Partial<Sums>> {
  if (scope.organizations.length === 0) return {};
  const day = Math.floor(hour / 24);
  const parts: Array<[string, string, number | null, number]> = scope.customerIds
    ? [['metrics_source_deltas', 'hour', null, hour]]
    : [
        ['metrics_days', 'day', null, day],
        ['metrics_buckets', 'hour', day * 24, hour],
      ];
  const rows = await Promise.all(
    parts.map(([table, time, from, to]) => {
      const query = scoped(db(table), scope, table).where(`${table}.${time}`, '<', to);
      if (from !== null) void query.where(`${table}.${time}`, '>=', from);
      return query.first(...sums(db, table, GAUGE_COLUMNS));
    }),
  );
  const levels: Partial<Sums> = {};
  for (const row of rows)
    for (const [column, value] of Object.entries(numbers((row ?? {}) as Record<string, unknown>)))
      levels[column as MetricColumn] = (levels[column as MetricColumn] ?? 0) + value;
  return levels;
}

/** Each organization's default presentment currency (USD when it has none), the one its metrics are in. */
export async function organizationCurrencies(
  db: Db,
  organizationIds: readonly string[],
): Promise<Array<{ id: string; currency: string }>> {
  if (organizationIds.length === 0) return [];
  const rows = await db('organizations')
    .whereIn('id', organizationIds)
    .select<Array<{ id: string; default_presentment_currency: string | null }>>('id', 'default_presentment_currency');
  return rows.map((row) => ({ id: row.id, currency: (row.default_presentment_currency ?? 'usd').toLowerCase() }));
}
