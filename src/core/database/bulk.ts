import type { Knex } from 'knex';
import { dialect, type Db } from './connection.js';
import { literalUnlessNul, sqliteLiteral } from './sqlite/literals.js';

/**
 * On SQLite, one multi-row INSERT with every value written as a literal (no placeholders to format or bind): for
 * batches of thousands of rows, SQLite parses literal VALUES about three times faster than it extracts the same
 * values from a JSON parameter, and no placeholder is formatted in JavaScript. Null on PostgreSQL, or when a value
 * has no exact literal (a fraction, text with a NUL: see sqliteLiteral); the caller then binds its values. A column
 * marked in `json` is written as its value's JSON text.
 *
 * A column whose value is the same in every row (an ingestion's organization, its nulls) is written once, in a
 * SELECT over the VALUES of the others: SQLite compiles each literal of a VALUES list into the statement, so a
 * constant repeated on thousands of rows cost it as much as any other value (bench/events/README.md).
 */
export function literalInsert(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  suffix: string,
  json: readonly boolean[] = [],
): Knex.Raw | null {
  if (dialect(db) !== 'sqlite' || rows.length === 0) return null;
  const first = rows[0]!;
  const constant = columns.map((_, c) => !json[c] && rows.length > 1 && rows.every((row) => row[c] === first[c]));
  const varying = constant.filter((same) => !same).length;
  // All constant (or none): nothing to take out of the VALUES list.
  if (varying === 0 || varying === columns.length) return valuesInsert(db, table, columns, rows, suffix, json);
  const select: string[] = [];
  let position = 0;
  for (let c = 0; c < columns.length; c++) {
    if (!constant[c]) {
      // The columns of a VALUES list are named column1, column2, …
      select.push(`column${++position}`);
      continue;
    }
    const literal = sqliteLiteral(first[c]);
    if (literal === null) return null;
    select.push(literal);
  }
  const values = literalRows(
    rows,
    constant.map((same) => !same),
    json,
  );
  if (values === null) return null;
  // `WHERE true` keeps SQLite from reading an ON CONFLICT as part of the SELECT's join (its documented ambiguity).
  return db.raw(
    `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${select.join(', ')} FROM (VALUES ${values}) WHERE true ${suffix}`,
  );
}

function valuesInsert(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  suffix: string,
  json: readonly boolean[],
): Knex.Raw | null {
  const values = literalRows(
    rows,
    columns.map(() => true),
    json,
  );
  return values === null ? null : db.raw(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values} ${suffix}`);
}

/**
 * `(…), (…)`: the rows' literals in the columns kept, or null when a value has none. One string grown from start to
 * end, where a string per row joined afterwards cost a batch of thousands of rows twice the time (a microbenchmark
 * of 4,000 events: 2–3 against 4–4.5 µs a row).
 *
 * Text is checked for a NUL once, in the whole string, not value by value. That read also makes V8 join the pieces
 * into one flat string now, while they are young. Left as grown, the text is a tree of tens of thousands of small
 * strings until the driver reads it. An ingestion group's text waits for the group before it to commit, so the
 * scavenger copied that tree and promoted it to the old space; joined at once, it is one large object, never copied
 * (bench/events/README.md).
 */
function literalRows(
  rows: readonly (readonly unknown[])[],
  kept: readonly boolean[],
  json: readonly boolean[],
): string | null {
  let values = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    values += r === 0 ? '(' : ', (';
    let first = true;
    for (let c = 0; c < row.length; c++) {
      if (!kept[c]) continue;
      const literal = literalUnlessNul(json[c] ? JSON.stringify(row[c]) : row[c]);
      if (literal === null) return null;
      values += first ? literal : `, ${literal}`;
      first = false;
    }
    values += ')';
  }
  return values.includes('\0') ? null : values;
}
