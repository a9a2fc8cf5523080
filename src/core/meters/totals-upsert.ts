import { createHash } from 'node:crypto';
import { isUniqueViolationOf, type Db, type Deferred } from '../database/index.js';
import type { Delta, TotalDelta } from './aggregates.js';
import { insertJsonRows, selectJsonRows, type JsonColumn } from './json-rows.js';

/**
 * Ids made, by meter id and then subject: both strings ingestion already holds, where a joined key was a new string to
 * hash for every row.
 */
const knownIds = new Map<string, Map<string, string>>();
let knownCount = 0;

/**
 * A customer meter's id: the same for a (meter, subject) pair forever, so it survives a recount after the meter
 * changes, and the upsert never reads it. Remembered, as a batch names the same pairs again and again.
 */
export function customerMeterId(meterId: string, subject: string): string {
  let ofMeter = knownIds.get(meterId);
  const known = ofMeter?.get(subject);
  if (known) return known;
  const hex = createHash('sha256').update(`${meterId}|${subject}`).digest('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  if (knownCount >= 100_000) {
    knownIds.clear();
    knownCount = 0;
    ofMeter = undefined;
  }
  if (!ofMeter) knownIds.set(meterId, (ofMeter = new Map()));
  ofMeter.set(subject, id);
  knownCount += 1;
  return id;
}

/** Adds the excluded (new) row's figures to the stored one; min/max keep whichever is set when the other is NULL. */
export const ADD_FIGURES = (table: string) => `events = ${table}.events + excluded.events,
  value_count = ${table}.value_count + excluded.value_count,
  value_sum = ${table}.value_sum + excluded.value_sum,
  value_min = CASE WHEN ${table}.value_min IS NULL THEN excluded.value_min WHEN excluded.value_min IS NULL THEN ${table}.value_min WHEN excluded.value_min < ${table}.value_min THEN excluded.value_min ELSE ${table}.value_min END,
  value_max = CASE WHEN ${table}.value_max IS NULL THEN excluded.value_max WHEN excluded.value_max IS NULL THEN ${table}.value_max WHEN excluded.value_max > ${table}.value_max THEN excluded.value_max ELSE ${table}.value_max END`;

export const FIGURES: JsonColumn[] = [
  { name: 'events', type: 'bigint' },
  { name: 'value_count', type: 'bigint' },
  { name: 'value_sum', type: 'double precision' },
  { name: 'value_min', type: 'double precision' },
  { name: 'value_max', type: 'double precision' },
];

/** A delta's figures, in the order of FIGURES. */
export function figuresOf(delta: Delta): [number, number, number, number | null, number | null] {
  return [delta.events, delta.valueCount, delta.valueSum, delta.valueMin, delta.valueMax];
}

/** What every row of a write to `meter_totals` carries: the pair, its customer meter's id and customer, the figures. */
const PAIR_COLUMNS: JsonColumn[] = [
  { name: 'meter_id', type: 'uuid' },
  { name: 'subject', type: 'text' },
  { name: 'id', type: 'uuid' },
  { name: 'customer_id', type: 'uuid' },
  { name: 'external_customer_id', type: 'text' },
  ...FIGURES,
];

/** A delta as a row in the order of PAIR_COLUMNS. */
function pairRow(row: TotalDelta): unknown[] {
  return [
    row.meterId,
    row.subject,
    customerMeterId(row.meterId, row.subject),
    row.customerId,
    row.externalCustomerId,
    ...figuresOf(row),
  ];
}

/**
 * What a MERGE's rows carry: the pair, the external id, the figures. A new row's id and customer follow from the
 * pair (MERGE_DERIVED), so only the rows it creates pay for them, not every row it adds to.
 */
const MERGE_COLUMNS: JsonColumn[] = [
  { name: 'meter_id', type: 'uuid' },
  { name: 'subject', type: 'text' },
  { name: 'external_customer_id', type: 'text' },
  ...FIGURES,
];

function mergeRow(row: TotalDelta): unknown[] {
  return [row.meterId, row.subject, row.externalCustomerId, ...figuresOf(row)];
}

/**
 * PostgreSQL: a new row's id, as customerMeterId makes it (the SHA-256 of `meter|subject` laid out as a version 4
 * UUID), and its customer, the id a `c:` subject names; as PAIR_COLUMNS has them.
 */
const HEX = `encode(sha256(convert_to(d.meter_id::text || '|' || d.subject, 'UTF8')), 'hex')`;
const MERGE_DERIVED = {
  id: `(substr(${HEX}, 1, 12) || '4' || substr(${HEX}, 14, 3) || substr('89ab', (('x' || substr(${HEX}, 17, 1))::bit(4)::int & 3) + 1, 1) || substr(${HEX}, 18, 15))::uuid`,
  customer_id: `CASE WHEN d.subject LIKE 'c:%' THEN substr(d.subject, 3)::uuid END`,
};

/** What an upsert's rows carry after PAIR_COLUMNS, and a MERGE binds once for all its new rows. */
const ONCE_COLUMNS: JsonColumn[] = [
  { name: 'organization_id', type: 'text' },
  { name: 'credited', type: 'bigint' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'modified_at', type: 'timestamptz' },
];

const TOTAL_COLUMNS: JsonColumn[] = [...PAIR_COLUMNS, ...ONCE_COLUMNS];

/**
 * SQLite: the event seq a slice of a held write counted its rows through (pending-totals.ts), for a recount after a
 * stop between two slices (totals-recount.ts).
 */
const HELD_THROUGH: JsonColumn = { name: 'held_through_seq', type: 'bigint' };

/** A total's delta with when it was first and last added to (epoch ms): a new row's created_at, a row's modified_at. */
export interface TimedTotalDelta extends TotalDelta {
  firstAt: number;
  lastAt: number;
}

/**
 * PostgreSQL: one MERGE adding an ingestion group's deltas to `meter_totals` (rows created as needed), or null when
 * there are none; every row is stamped with `at`. Rows of one organization, sorted by (meter, subject) so that
 * concurrent groups lock rows in one order.
 *
 * A MERGE updates a stored row where `INSERT … ON CONFLICT DO UPDATE` first probed the key for a conflict, locked the
 * row (a WAL record of its own) and then updated it; and its rows carry only what a new row needs besides the
 * organization and the time. bench/events/README.md has the figures. Unlike the upsert it does not wait out a
 * concurrent insert of the same new pair: it fails with a unique violation (`isTotalsRace`), and the caller's
 * transaction runs again, finding the row then.
 */
export function deferMergeTotals(db: Db, rows: readonly TotalDelta[], at: number): Deferred | null {
  if (rows.length === 0) return null;
  const organizationId = rows[0]!.organizationId;
  if (rows.some((row) => row.organizationId !== organizationId))
    throw new Error('deferMergeTotals takes the totals of one organization');
  const source = selectJsonRows(db, MERGE_COLUMNS, rows.map(mergeRow)).toSQL();
  const values = PAIR_COLUMNS.map((column) =>
    column.name === 'id' || column.name === 'customer_id' ? MERGE_DERIVED[column.name] : `d.${column.name}`,
  );
  // least/greatest skip NULLs: min and max keep whichever is set, as ADD_FIGURES does.
  return db.raw(
    `MERGE INTO meter_totals AS t USING (${source.sql}) AS d ON t.meter_id = d.meter_id AND t.subject = d.subject
WHEN MATCHED THEN UPDATE SET events = t.events + d.events, value_count = t.value_count + d.value_count,
  value_sum = t.value_sum + d.value_sum, value_min = least(t.value_min, d.value_min),
  value_max = greatest(t.value_max, d.value_max), modified_at = to_timestamp(?::double precision / 1000)
WHEN NOT MATCHED THEN INSERT (${TOTAL_COLUMNS.map((column) => column.name).join(', ')})
  VALUES (${values.join(', ')}, ?, 0, to_timestamp(?::double precision / 1000), to_timestamp(?::double precision / 1000))`,
    [...source.bindings, at, organizationId, at, at],
  );
}

/** A MERGE of totals that met a concurrent insert of the same (meter, subject) pair: its transaction may run again. */
export function isTotalsRace(error: unknown): boolean {
  return isUniqueViolationOf(error, 'meter_totals_pkey');
}

/**
 * One upsert adding these deltas to `meter_totals` (rows created as needed), or null when there are none. A row
 * created or changed is stamped with the delta's own times (held totals), else with `at`; and, given `heldThrough`
 * (a slice of a held write, SQLite), with the event seq its figures now count through.
 */
export function deferAddTotals(
  db: Db,
  rows: ReadonlyArray<TotalDelta & Partial<Pick<TimedTotalDelta, 'firstAt' | 'lastAt'>>>,
  at: number,
  heldThrough?: number,
): Deferred | null {
  if (rows.length === 0) return null;
  const held = heldThrough !== undefined;
  return insertJsonRows(
    db,
    'meter_totals',
    held ? [...TOTAL_COLUMNS, HELD_THROUGH] : TOTAL_COLUMNS,
    rows.map((row) => [
      ...pairRow(row),
      row.organizationId,
      0,
      row.firstAt ?? at,
      row.lastAt ?? at,
      ...(held ? [heldThrough] : []),
    ]),
    `ON CONFLICT (meter_id, subject) DO UPDATE SET ${ADD_FIGURES('meter_totals')}, modified_at = excluded.modified_at${held ? ', held_through_seq = excluded.held_through_seq' : ''}`,
  );
}
