import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';

/**
 * Statements whose text does not depend on how many rows they carry: the rows travel as one JSON parameter. On SQLite
 * this matters beyond the saved compiling: the connection keeps a prepared statement per SQL text (see
 * sqlite-statements.ts), and a text per list length would crowd the cache and make sqlite3 finalize statements on the
 * main thread, where it waits for the connection's mutex while another statement runs.
 */

/**
 * `column` is one of the ids, as a predicate with one binding. PostgreSQL gets an array (its planner knows how many
 * ids there are and probes the index; a set-returning function would be guessed at 100 rows and may be joined by a
 * scan); SQLite gets a JSON array, probed through the index the same way.
 */
export function idIn(db: Db, column: string, ids: string[]): { sql: string; binding: string } {
  return dialect(db) === 'postgres'
    ? { sql: `${column} = ANY(?::uuid[])`, binding: `{${ids.join(',')}}` }
    : { sql: `${column} IN (SELECT value FROM json_each(?))`, binding: JSON.stringify(ids) };
}

/** Column name → PostgreSQL type (how the JSON value is read back there). */
export type Columns = Record<string, 'uuid' | 'text' | 'integer' | 'bigint' | 'boolean' | 'timestamptz'>;

function jsonValue(db: Db, value: unknown): unknown {
  if (value instanceof Date) return dialect(db) === 'postgres' ? value.toISOString() : value.getTime();
  return value ?? null;
}

/** One INSERT for any number of rows (each a record keyed by column name). */
export async function insertRows(
  db: Db,
  table: string,
  columns: Columns,
  rows: Array<Record<string, unknown>>,
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const json = JSON.stringify(
    rows.map((row) => Object.fromEntries(names.map((name) => [name, jsonValue(db, row[name])]))),
  );
  if (dialect(db) === 'postgres') {
    const types = names.map((name) => `${name} ${columns[name]}`).join(', ');
    await db.raw(
      `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.join(', ')} FROM json_to_recordset(?::json) AS x(${types})`,
      [json],
    );
  } else {
    await db.raw(
      `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.map((name) => `json_extract(value, '$.${name}')`).join(', ')} FROM json_each(?)`,
      [json],
    );
  }
}
