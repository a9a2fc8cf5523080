import type { Knex } from 'knex';
import type { Db, Deferred } from '../database/index.js';
import { type DeltaRow, GAUGE_COLUMNS, METRIC_COLUMNS, type MetricColumn, type MetricValues } from './contributions.js';

const KEY_COLUMNS = ['organization_id', 'currency', 'hour', 'product_id', 'billing_type'] as const;
const DELTA_COLUMNS = ['source_id', 'customer_id', ...KEY_COLUMNS, ...METRIC_COLUMNS];
const BUCKET_COLUMNS = [...KEY_COLUMNS, ...METRIC_COLUMNS];
// 27 values a row: 200 rows stay far below both databases' limits on bound values.
const ROWS_PER_STATEMENT = 200;

const addExcluded = METRIC_COLUMNS.map((column) => `${column} = metrics_buckets.${column} + excluded.${column}`).join(
  ', ',
);
const onConflictAdd = `ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET ${addExcluded}`;

function keyOf(row: DeltaRow): string {
  return `${row.organizationId}\u0000${row.currency}\u0000${row.hour}\u0000${row.productId}\u0000${row.billingType}`;
}

function placeholders(rows: number, columns: number): string {
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(row).join(', ');
}

function valuesOf(values: MetricValues): number[] {
  return METRIC_COLUMNS.map((column) => values[column] ?? 0);
}

/**
 * The statements that replace what some sources contributed with their new rows, in order: take their old rows out of
 * the buckets, forget them, then write the new rows and add them to the buckets. `replacing` lists the sources that
 * may have rows already; a source seen for the first time skips the first two. No answer is read, so these can end a
 * transaction (finishWith) like the outbox rows they go with.
 */
export function deferApplyDeltas(trx: Db, replacing: readonly string[], rows: readonly DeltaRow[]): Deferred[] {
  const writes: Deferred[] = [];
  if (replacing.length > 0) {
    const ids = replacing.map(() => '?').join(', ');
    const negated = METRIC_COLUMNS.map((column) => `-SUM(${column})`).join(', ');
    writes.push(
      trx.raw(
        `INSERT INTO metrics_buckets (${BUCKET_COLUMNS.join(', ')}) SELECT ${KEY_COLUMNS.join(', ')}, ${negated} ` +
          `FROM metrics_source_deltas WHERE source_id IN (${ids}) GROUP BY ${KEY_COLUMNS.join(', ')} ${onConflictAdd}`,
        [...replacing],
      ),
      trx('metrics_source_deltas').whereIn('source_id', replacing).del(),
    );
  }
  writes.push(...deferInsertSourceDeltas(trx, rows), ...deferAddToBuckets(trx, rows));
  return writes;
}

export function deferInsertSourceDeltas(trx: Db, rows: readonly DeltaRow[]): Deferred[] {
  const writes: Deferred[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    writes.push(
      trx.raw(
        `INSERT INTO metrics_source_deltas (${DELTA_COLUMNS.join(', ')}) VALUES ${placeholders(chunk.length, DELTA_COLUMNS.length)}`,
        chunk.flatMap((row) => [
          row.sourceId,
          row.customerId,
          row.organizationId,
          row.currency,
          row.hour,
          row.productId,
          row.billingType,
          ...valuesOf(row.values),
        ]),
      ),
    );
  }
  return writes;
}

/** Rows summed per bucket first: PostgreSQL refuses an upsert that meets the same row twice in one statement. */
export function deferAddToBuckets(trx: Db, rows: readonly DeltaRow[]): Deferred[] {
  const buckets = new Map<string, { row: DeltaRow; values: number[] }>();
  for (const row of rows) {
    const key = keyOf(row);
    const values = valuesOf(row.values);
    const bucket = buckets.get(key);
    if (bucket) values.forEach((value, index) => (bucket.values[index] += value));
    else buckets.set(key, { row, values });
  }
  const list = [...buckets.values()];
  const writes: Deferred[] = [];
  for (let start = 0; start < list.length; start += ROWS_PER_STATEMENT) {
    const chunk = list.slice(start, start + ROWS_PER_STATEMENT);
    writes.push(
      trx.raw(
        `INSERT INTO metrics_buckets (${BUCKET_COLUMNS.join(', ')}) VALUES ${placeholders(chunk.length, BUCKET_COLUMNS.length)} ${onConflictAdd}`,
        chunk.flatMap(({ row, values }) => [
          row.organizationId,
          row.currency,
          row.hour,
          row.productId,
          row.billingType,
          ...values,
        ]),
      ),
    );
  }
  return writes;
}

export async function clearRollups(trx: Db, organizationId: string): Promise<void> {
  await trx('metrics_source_deltas').where('organization_id', organizationId).del();
  await trx('metrics_buckets').where('organization_id', organizationId).del();
}

/** What a query covers: each organization in its own currency, and the optional filters. */
export interface RollupScope {
  organizations: ReadonlyArray<{ id: string; currency: string }>;
  productIds?: readonly string[];
  billingTypes?: readonly string[];
  customerIds?: readonly string[];
}

export type HourSums = { hour: number } & Record<MetricColumn, number>;

function scoped(db: Db, scope: RollupScope): Knex.QueryBuilder {
  // A customer filter reads the per-source rows, which carry the customer; otherwise the buckets, which are far fewer.
  const table = scope.customerIds ? 'metrics_source_deltas' : 'metrics_buckets';
  const query = db(table).where((where) => {
    for (const organization of scope.organizations)
      where.orWhere((one) => one.where('organization_id', organization.id).where('currency', organization.currency));
  });
  if (scope.customerIds) query.whereIn('customer_id', scope.customerIds);
  if (scope.productIds) query.whereIn('product_id', scope.productIds);
  if (scope.billingTypes) query.whereIn('billing_type', scope.billingTypes);
  return query;
}

function sums(db: Db, columns: readonly MetricColumn[]): Knex.Raw[] {
  return columns.map((column) => db.raw(`SUM(${column}) AS ${column}`));
}

function numbers<T extends Record<string, unknown>>(row: T): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value === null ? 0 : Number(value);
  return out;
}

/** Sums per hour in [fromHour, toHour), hours without rows left out. */
export async function sumsByHour(
  db: Db,
  scope: RollupScope,
  fromHour: number,
  toHour: number,
  columns: readonly MetricColumn[],
): Promise<HourSums[]> {
  if (scope.organizations.length === 0) return [];
  const rows = await scoped(db, scope)
    .where('hour', '>=', fromHour)
    .where('hour', '<', toHour)
    .select('hour', ...sums(db, columns))
    .groupBy('hour')
    .orderBy('hour');
  return rows.map((row: Record<string, unknown>) => numbers(row) as HourSums);
}

/** The gauges' levels at the start of `hour`: all their changes before it. */
export async function gaugesBefore(db: Db, scope: RollupScope, hour: number): Promise<Record<MetricColumn, number>> {
  if (scope.organizations.length === 0) return {} as Record<MetricColumn, number>;
  const row = (await scoped(db, scope)
    .where('hour', '<', hour)
    .first(...sums(db, GAUGE_COLUMNS))) as Record<string, unknown> | undefined;
  return numbers(row ?? {}) as Record<MetricColumn, number>;
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
