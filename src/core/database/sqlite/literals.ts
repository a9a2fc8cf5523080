/**
 * SQL text with its bound values written in as SQLite literals, for `Database#exec`: the one sqlite3 call that runs
 * several statements in a single trip to the thread pool, and the one that takes no parameters. Every value is
 * written so that SQLite stores exactly what the sqlite3 driver would have bound (same value, same storage class);
 * a value that cannot be written that way (text with a NUL, which would end the C string, a fraction, a number
 * beyond 2^53, anything but the driver's plain types) makes the whole statement decline, and the caller binds it
 * as usual instead.
 */

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The literal for one value, or null when it cannot be written exactly. */
export function sqliteLiteral(value: unknown): string | null {
  return typeof value === 'string' && value.includes('\0') ? null : literalUnlessNul(value);
}

/**
 * sqliteLiteral without its check for a NUL in text, for a caller that checks the whole statement's text at once
 * (database/bulk.ts): a literal holding a NUL is written, and the statement must then be declined.
 */
export function literalUnlessNul(value: unknown): string | null {
  if (value === null) return 'NULL';
  switch (typeof value) {
    case 'string':
      return `'${doubledQuotes(value)}'`;
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      return numberLiteral(value);
    case 'object':
      if (value instanceof Date) {
        // The driver binds a Date as a double of its epoch milliseconds.
        const ms = value.getTime();
        return Number.isSafeInteger(ms) ? `${ms}.0` : null;
      }
      if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
      return null;
    default:
      return null;
  }
}

/**
 * Text as it goes inside '…': SQLite gives meaning to nothing but the quote itself, written twice. Most values have
 * none, and skipping the replace spares a copy of each (event batches write thousands).
 */
export function doubledQuotes(text: string): string {
  return text.includes("'") ? text.replaceAll("'", "''") : text;
}

function numberLiteral(value: number): string | null {
  // The driver binds a 32-bit integer as an integer and every other number as a double.
  if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) return String(value === 0 ? 0 : value);
  // A whole double is written with a fraction so SQLite reads a REAL, exactly (it is below 2^53).
  if (Number.isSafeInteger(value)) return `${value}.0`;
  return null;
}

/**
 * The statement with each `?` outside quotes and comments replaced by its value's literal, or null when a value has
 * no exact literal (`sqliteLiteral`) or the placeholders do not match the values (numbered `?NNN` ones included).
 */
export function inlineBindings(sql: string, bindings: readonly unknown[]): string | null {
  // Nothing to write in (a statement built with literals already, database/bulk.ts): no need to scan its text.
  if (bindings.length === 0) return sql;
  let out = '';
  let next = 0;
  let from = 0;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i]!;
    if (char === "'" || char === '"' || char === '`' || char === '[') {
      const close = char === '[' ? ']' : char;
      const end = sql.indexOf(close, i + 1);
      if (end < 0) return null;
      i = end;
      continue;
    }
    if ((char === '-' && sql[i + 1] === '-') || (char === '/' && sql[i + 1] === '*')) {
      const close = char === '-' ? '\n' : '*/';
      const end = sql.indexOf(close, i + 2);
      if (end < 0) return null;
      i = end + close.length - 1;
      continue;
    }
    if (char !== '?') continue;
    if (/[0-9]/.test(sql[i + 1] ?? '') || next >= bindings.length) return null;
    const literal = sqliteLiteral(bindings[next++]);
    if (literal === null) return null;
    out += sql.slice(from, i) + literal;
    from = i + 1;
  }
  if (next !== bindings.length) return null;
  return out + sql.slice(from);
}

/** Every statement with its values written in, or null as soon as one cannot be (see inlineBindings). */
export function inlineStatements(
  statements: ReadonlyArray<{ sql: string; bindings: readonly unknown[] }>,
): string[] | null {
  const inlined: string[] = [];
  for (const statement of statements) {
    const sql = inlineBindings(statement.sql, statement.bindings);
    if (sql === null) return null;
    inlined.push(sql);
  }
  return inlined;
}
