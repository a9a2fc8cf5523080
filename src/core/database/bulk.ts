import type { Knex } from 'knex';
import { dialect, type Db } from './connection.js';
import { doubledQuotes, literalUnlessNul, sqliteLiteral } from './sqlite/literals.js';

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
 * `(…), (…)`: the rows' literals in the columns kept, or null when a value has none.
 *
 * Written as UTF-8 into one buffer kept from statement to statement, and read out as one string at the end. Grown
 * with `+=`, the text of a group of 4,000 events was a tree of a hundred thousand small strings, live until it was
 * joined, and about a third of what ingestion allocated: the young generation filled more often, and a collection
 * that fell while a statement was being built copied its tree (bench/events/README.md). The result is the same
 * text: a string's literal is its value in quotes with each quote doubled, any other value's is sqliteLiteral's.
 * A NUL, which would end the C string, is looked for once in the bytes (no other character writes a zero byte).
 */
function literalRows(
  rows: readonly (readonly unknown[])[],
  kept: readonly boolean[],
  json: readonly boolean[],
): string | null {
  const text = new LiteralText();
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    text.ascii(r === 0 ? '(' : ', (');
    let first = true;
    for (let c = 0; c < row.length; c++) {
      if (!kept[c]) continue;
      if (!first) text.ascii(', ');
      first = false;
      const value = json[c] ? JSON.stringify(row[c]) : row[c];
      if (typeof value === 'string') {
        text.quoted(value);
        continue;
      }
      const literal = literalUnlessNul(value);
      if (literal === null) return null;
      text.ascii(literal);
    }
    text.ascii(')');
  }
  return text.finish();
}

/** Bytes kept between statements: a group's text is about 200 bytes an event. */
let shared = Buffer.allocUnsafe(1 << 20);
/** Past this, the buffer a statement grew is let go rather than kept for the next (memory). */
const MOST_KEPT = 8 << 20;
/** 32 KiB of UTF-8 is at most 64 KiB as a two-byte string: every piece stays under V8's large-object size (128 KiB). */
const PIECE_BYTES = 32 * 1024;

class LiteralText {
  private buffer = shared;
  private length = 0;
  /** Whether a byte past ASCII was written: the text is then read back as UTF-8, else as Latin-1 (a plain copy). */
  private wide = false;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** Text known to be ASCII: punctuation, and the literals of numbers, NULL, blobs and dates. */
  ascii(text: string): void {
    this.room(text.length);
    this.length += this.buffer.write(text, this.length, 'latin1');
  }

  quoted(value: string): void {
    const text = doubledQuotes(value);
    // UTF-8 takes at most three bytes for each UTF-16 unit.
    this.room(text.length * 3 + 2);
    this.buffer[this.length++] = 0x27;
    const written = this.buffer.write(text, this.length, 'utf8');
    if (written !== text.length) this.wide = true;
    this.length += written;
    this.buffer[this.length++] = 0x27;
  }

  /**
   * Read out in pieces of PIECE_BYTES joined with `+`, which links them rather than copying: finishWith joins the
   * statement with the group's others into one string anyway, so a large string made here as well would be a second
   * large allocation, far dearer a byte than small ones (bench/events/README.md).
   */
  finish(): string | null {
    const { buffer, length } = this;
    shared = buffer.length <= MOST_KEPT ? buffer : Buffer.allocUnsafe(1 << 20);
    if (buffer.subarray(0, length).includes(0)) return null;
    const encoding = this.wide ? 'utf8' : 'latin1';
    let text = '';
    let from = 0;
    while (length - from > PIECE_BYTES) {
      let to = from + PIECE_BYTES;
      // A piece ends before a character's lead byte, never inside it: UTF-8 continuation bytes start with bits 10.
      while ((buffer[to]! & 0xc0) === 0x80) to -= 1;
      text += buffer.toString(encoding, from, to);
      from = to;
    }
    return text + buffer.toString(encoding, from, length);
  }
}
