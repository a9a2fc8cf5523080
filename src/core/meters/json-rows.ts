import type { Knex } from 'knex';
import { dialect, literalInsert, type Db } from '../database/index.js';

/**
 * Many rows written by one statement whose only bound value is the rows as one JSON array of arrays: the SQL text
 * is the same for every batch (prepared once, never re-planned) and the values are parsed by the database in C,
 * instead of tens of thousands of placeholders formatted, inlined and parsed one by one. On SQLite, literal VALUES
 * are cheaper still (literalInsert); the JSON form is its fallback there. For the repositories of events and
 * meters, whose batches have thousands of rows.
 */
export interface JsonColumn {
  name: string;
  /**
   * How PostgreSQL reads the value from its JSON text; SQLite stores what JSON gives (text, integer, real, null).
   * `json`: any value, stored as its JSON text, as the daemon writes it.
   */
  type: 'text' | 'uuid' | 'bigint' | 'double precision' | 'timestamptz' | 'json';
}

/**
 * `SELECT <columns> FROM <the rows>`, each named as its column, for an INSERT … SELECT or a join. Timestamps travel as
 * epoch milliseconds.
 */
export function selectJsonRows(db: Db, columns: readonly JsonColumn[], rows: readonly unknown[][]): Knex.Raw {
  if (dialect(db) === 'postgres') {
    const read = columns.map((column, i) => {
      if (column.type === 'timestamptz') return `to_timestamp((r ->> ${i})::double precision / 1000) AS ${column.name}`;
      if (column.type === 'json') return `r ->> ${i} AS ${column.name}`;
      return `(r ->> ${i})::${column.type} AS ${column.name}`;
    });
    return db.raw(`SELECT ${read.join(', ')} FROM jsonb_array_elements(?::jsonb) AS rows(r)`, [
      binaryJsonb(withJsonText(columns, rows)),
    ]);
  }
  const read = columns.map((column, i) => `value ->> ${i} AS ${column.name}`);
  return db.raw(`SELECT ${read.join(', ')} FROM json_each(?)`, [JSON.stringify(withJsonText(columns, rows))]);
}

/**
 * PostgreSQL: the rows as a `jsonb` parameter in its binary form (a version byte, then the JSON text), which the
 * driver sends as it is, written row by row into one buffer. Sent as one string, the rows were a string of megabytes
 * that JSON.stringify had built in pieces, and the driver's measure of its UTF-8 length first joined them: about a
 * tenth of the daemon's time on PostgreSQL (bench/events/README.md). Each row's text is short, and is measured and
 * written as it is.
 */
function binaryJsonb(rows: readonly unknown[][]): Buffer {
  const texts = new Array<string>(rows.length);
  // The version byte and the brackets; then each row and a comma.
  let bytes = 3;
  for (let i = 0; i < rows.length; i++) {
    const text = JSON.stringify(rows[i]);
    texts[i] = text;
    bytes += Buffer.byteLength(text) + 1;
  }
  const buffer = Buffer.allocUnsafe(bytes);
  buffer[0] = JSONB_VERSION;
  buffer[1] = 0x5b;
  let at = 2;
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) buffer[at++] = 0x2c;
    at += buffer.write(texts[i]!, at);
  }
  buffer[at++] = 0x5d;
  return buffer.subarray(0, at);
}

/** The one version of `jsonb`'s binary format, its first byte. */
const JSONB_VERSION = 1;

/**
 * The rows with each `json` column's value as its JSON text, a string read back as it is. Sent as an object inside
 * the rows, PostgreSQL parsed it into jsonb, numbers into numerics, to write it out again as text (events'
 * metadata: bench/events/README.md). Copies only rows that have such a column.
 */
function withJsonText(columns: readonly JsonColumn[], rows: readonly unknown[][]): readonly unknown[][] {
  const json = columns.flatMap((column, i) => (column.type === 'json' ? [i] : []));
  if (json.length === 0) return rows;
  return rows.map((row) => {
    const copy = row.slice();
    for (const i of json) copy[i] = JSON.stringify(copy[i]);
    return copy;
  });
}

/** `INSERT INTO table (columns) SELECT … <suffix>` (an ON CONFLICT clause): one statement for the whole batch. */
export function insertJsonRows(
  db: Db,
  table: string,
  columns: readonly JsonColumn[],
  rows: readonly unknown[][],
  suffix: string,
): Knex.Raw {
  const literal = literalInsert(
    db,
    table,
    columns.map((column) => column.name),
    rows,
    suffix,
    columns.map((column) => column.type === 'json'),
  );
  if (literal) return literal;
  const select = selectJsonRows(db, columns, rows).toSQL();
  // `WHERE true` keeps SQLite from reading ON CONFLICT as part of the SELECT's join (its documented ambiguity).
  return db.raw(
    `INSERT INTO ${table} (${columns.map((column) => column.name).join(', ')}) ${select.sql} WHERE true ${suffix}`,
    select.bindings,
  );
}
