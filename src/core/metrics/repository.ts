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
 * The statements that replace what some sources contributed with their new rows: add to the buckets what changed
 * (the new rows less the sources' old ones, per bucket; a bucket whose change is nothing is not written, so a renewal
 * that leaves its subscription's contributions as they were locks no bucket), then forget the old rows and write the
 * new. `replacing` lists the sources that may have rows already; a source seen for the first time has none to take
 * back. `countOnly` rows go to the buckets alone: they are never taken back and know no customer (checkouts). No
 * answer is read, so these can end a transaction (finishWith) like the outbox rows they go with; callers put them
 * last, since the buckets they lock are shared by every change of the organization in the same hour.
 */
export function deferApplyDeltas(
  trx: Db,
  replacing: readonly string[],
  rows: readonly DeltaRow[],
  countOnly: readonly DeltaRow[] = [],
): Deferred[] {
  if (replacing.length === 0)
    return [...deferInsertSourceDeltas(trx, rows), ...deferAddToBuckets(trx, [...rows, ...countOnly])];
  const writes: Deferred[] = [];
  for (const part of bySources(replacing, [...rows, ...countOnly]))
    for (const level of LEVELS) writes.push(...deferBucketChanges(trx, level, part.sources, part.rows));
  writes.push(trx('metrics_source_deltas').whereIn('source_id', replacing).del());
  writes.push(...deferInsertSourceDeltas(trx, rows));
  return writes;
}

// Replaced sources a bucket statement names at most: SQLite takes 32,766 bound values.
const SOURCES_PER_STATEMENT = 5000;

/**
 * The replaced sources in parts of SOURCES_PER_STATEMENT, each with its sources' new rows, so that what a source
 * takes back and what it adds meet in one sum; the other rows (new sources, counts) go with the last part.
 */
function bySources(
  replacing: readonly string[],
  rows: readonly DeltaRow[],
): Array<{ sources: string[]; rows: DeltaRow[] }> {
  const parts: Array<{ sources: string[]; rows: DeltaRow[] }> = [];
  const partOf = new Map<string, { sources: string[]; rows: DeltaRow[] }>();
  for (let start = 0; start < replacing.length; start += SOURCES_PER_STATEMENT) {
    const part = { sources: replacing.slice(start, start + SOURCES_PER_STATEMENT), rows: [] };
    parts.push(part);
    for (const id of part.sources) partOf.set(id, part);
  }
  for (const row of rows) (partOf.get(row.sourceId) ?? parts[parts.length - 1]!).rows.push(row);
  return parts;
}

/**
 * A first row whose types PostgreSQL can see: it types a VALUES list's unknown parameters as text before the UNION
 * meets the stored rows' integers. Both databases read these casts.
 */
const TYPED_ROW = `(${['text', 'text', 'integer', 'text', 'text', ...METRIC_COLUMNS.map(() => 'bigint')]
  .map((type) => `CAST(? AS ${type})`)
  .join(', ')})`;

/**
 * One level's buckets moved by the new rows less the replaced sources' stored ones: the new rows summed per bucket
 * here, the stored ones taken off in the statement, in key order (concurrent transactions then lock shared buckets in
 * one order). Sums past ROWS_PER_STATEMENT are added by statements of their own.
 */
function deferBucketChanges(
  trx: Db,
  level: Level,
  replacing: readonly string[],
  rows: readonly DeltaRow[],
): Deferred[] {
  const sums = bucketSums(level, rows);
  const carried = sums.slice(0, ROWS_PER_STATEMENT);
  const key = `organization_id, currency, ${level.sql} AS ${level.time}, product_id, billing_type`;
  const grouped = keyOf(level).join(', ');
  // The stored rows come first: they name the columns (a VALUES list's are column1, column2, …).
  const branches = [
    `SELECT ${key}, ${METRIC_COLUMNS.map((column) => `-${column} AS ${column}`).join(', ')} ` +
      `FROM metrics_source_deltas WHERE source_id IN (${replacing.map(() => '?').join(', ')})`,
  ];
  if (carried.length > 0)
    branches.push(
      `VALUES ${TYPED_ROW}${carried.length > 1 ? `, ${placeholders(carried.length - 1, TYPED_ROW_COLUMNS)}` : ''}`,
    );
  return [
    trx.raw(
      `INSERT INTO ${level.table} (${[...keyOf(level), ...METRIC_COLUMNS].join(', ')}) ` +
        `SELECT ${grouped}, ${METRIC_COLUMNS.map((column) => `SUM(${column})`).join(', ')} ` +
        `FROM (${branches.join(' UNION ALL ')}) AS changes GROUP BY ${grouped} ` +
        `HAVING ${METRIC_COLUMNS.map((column) => `SUM(${column}) <> 0`).join(' OR ')} ORDER BY ${grouped} ` +
        onConflictAdd(level),
      [...replacing, ...carried.flatMap(({ key, values }) => [...key, ...values])],
    ),
    ...deferUpsertSums(trx, level, sums.slice(ROWS_PER_STATEMENT)),
  ];
}

const TYPED_ROW_COLUMNS = KEY_COLUMNS.length + METRIC_COLUMNS.length;

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
  return LEVELS.flatMap((level) => deferUpsertSums(trx, level, bucketSums(level, rows)));
}

interface BucketSum {
  key: Array<string | number>;
  values: number[];
}

/** The rows summed per bucket of the level, in key order. */
function bucketSums(level: Level, rows: readonly DeltaRow[]): BucketSum[] {
  const buckets = new Map<string, BucketSum>();
  for (const row of rows) {
    const time = level.of(row.hour);
    const id = `${row.organizationId}\u0000${row.currency}\u0000${time}\u0000${row.productId}\u0000${row.billingType}`;
    const values = valuesOf(row.values);
    const bucket = buckets.get(id);
    if (bucket) values.forEach((value, index) => (bucket.values[index] += value));
    else buckets.set(id, { key: [row.organizationId, row.currency, time, row.productId, row.billingType], values });
  }
  // In key order, so that concurrent transactions (two chunks of renewals) lock shared buckets in the same order.
  return [...buckets.keys()].sort().map((id) => buckets.get(id)!);
}

function deferUpsertSums(trx: Db, level: Level, sums: readonly BucketSum[]): Deferred[] {
  const writes: Deferred[] = [];
  const columns = [...keyOf(level), ...METRIC_COLUMNS];
  for (let start = 0; start < sums.length; start += ROWS_PER_STATEMENT) {
    const chunk = sums.slice(start, start + ROWS_PER_STATEMENT);
    writes.push(
      trx.raw(
        `INSERT INTO ${level.table} (${columns.join(', ')}) VALUES ${placeholders(chunk.length, columns.length)} ${onConflictAdd(level)}`,
        chunk.flatMap(({ key, values }) => [...key, ...values]),
      ),
    );
  }
  return writes;
}

export async function clearRollups(trx: Db, organizationId: string): Promise<void> {
  await trx('metrics_source_deltas').where('organization_id', organizationId).del();
  for (const level of LEVELS) await trx(level.table).where('organization_id', organizationId).del();
}
