import type { Db, Deferred } from '../database/index.js';
import { type DeltaRow, METRIC_COLUMNS, type MetricValues } from './contributions.js';

const KEY_COLUMNS = ['organization_id', 'currency', 'hour', 'product_id', 'billing_type'] as const;
const DELTA_COLUMNS = ['source_id', 'customer_id', ...KEY_COLUMNS, ...METRIC_COLUMNS];

/**
 * The two levels of buckets: per UTC hour, and per UTC day (hour ÷ 24), so a long range reads days and only its
 * periods' edges read hours.
 */
const LEVELS = [
  { table: 'metrics_buckets', time: 'hour', of: (hour: number) => hour, sql: 'hour' },
  { table: 'metrics_days', time: 'day', of: (hour: number) => Math.floor(hour / 24), sql: 'hour / 24' },
] as const;
type Level = (typeof LEVELS)[number];

const keyOf = (level: Level) => ['organization_id', 'currency', level.time, 'product_id', 'billing_type'];
const onConflictAdd = (level: Level) =>
  `ON CONFLICT (${keyOf(level).join(', ')}) DO UPDATE SET ` +
  METRIC_COLUMNS.map((column) => `${column} = ${level.table}.${column} + excluded.${column}`).join(', ');
// 27 values a row: 200 rows stay far below both databases' limits on bound values.
const ROWS_PER_STATEMENT = 200;

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
 * may have rows already; a source seen for the first time skips the first two. `countOnly` rows go to the buckets
 * alone: they are never taken back and know no customer (checkouts). No answer is read, so these can end a
 * transaction (finishWith) like the outbox rows they go with.
 */
export function deferApplyDeltas(
  trx: Db,
  replacing: readonly string[],
  rows: readonly DeltaRow[],
  countOnly: readonly DeltaRow[] = [],
): Deferred[] {
  const writes: Deferred[] = [];
  if (replacing.length > 0) {
    const ids = replacing.map(() => '?').join(', ');
    const negated = METRIC_COLUMNS.map((column) => `-SUM(${column})`).join(', ');
    for (const level of LEVELS) {
      const key = `organization_id, currency, ${level.sql}, product_id, billing_type`;
      writes.push(
        trx.raw(
          `INSERT INTO ${level.table} (${[...keyOf(level), ...METRIC_COLUMNS].join(', ')}) SELECT ${key}, ${negated} ` +
            `FROM metrics_source_deltas WHERE source_id IN (${ids}) GROUP BY ${key} ${onConflictAdd(level)}`,
          [...replacing],
        ),
      );
    }
    writes.push(trx('metrics_source_deltas').whereIn('source_id', replacing).del());
  }
  writes.push(...deferInsertSourceDeltas(trx, rows), ...deferAddToBuckets(trx, [...rows, ...countOnly]));
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
function deferAddToBuckets(trx: Db, rows: readonly DeltaRow[]): Deferred[] {
  const writes: Deferred[] = [];
  for (const level of LEVELS) {
    const buckets = new Map<string, { key: Array<string | number>; values: number[] }>();
    for (const row of rows) {
      const time = level.of(row.hour);
      const id = `${row.organizationId}\u0000${row.currency}\u0000${time}\u0000${row.productId}\u0000${row.billingType}`;
      const values = valuesOf(row.values);
      const bucket = buckets.get(id);
      if (bucket) values.forEach((value, index) => (bucket.values[index] += value));
      else buckets.set(id, { key: [row.organizationId, row.currency, time, row.productId, row.billingType], values });
    }
    // In key order, so that concurrent transactions (two chunks of renewals) lock shared buckets in the same order.
    const list = [...buckets.keys()].sort().map((id) => buckets.get(id)!);
    const columns = [...keyOf(level), ...METRIC_COLUMNS];
    for (let start = 0; start < list.length; start += ROWS_PER_STATEMENT) {
      const chunk = list.slice(start, start + ROWS_PER_STATEMENT);
      writes.push(
        trx.raw(
          `INSERT INTO ${level.table} (${columns.join(', ')}) VALUES ${placeholders(chunk.length, columns.length)} ${onConflictAdd(level)}`,
          chunk.flatMap(({ key, values }) => [...key, ...values]),
        ),
      );
    }
  }
  return writes;
}

export async function clearRollups(trx: Db, organizationId: string): Promise<void> {
  await trx('metrics_source_deltas').where('organization_id', organizationId).del();
  for (const level of LEVELS) await trx(level.table).where('organization_id', organizationId).del();
}
