// Row value conversions: each dialect stores one representation (timestamptz on PostgreSQL, epoch milliseconds
// on SQLite, which is what the sqlite3 driver binds a Date as); only repositories call these.
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value === 'string') {
    return /^\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
  }
  throw new Error(`not a timestamp: ${String(value)}`);
}

export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

export function toStringOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

export function parseJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return JSON.parse(value) as T;
  return value as T;
}

/** The rows of a `db.raw` SELECT: an array from sqlite3, a result with `rows` from pg. */
export function rawRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result as Array<Record<string, unknown>>;
  return ((result as { rows?: unknown[] } | null)?.rows ?? []) as Array<Record<string, unknown>>;
}

/**
 * SQL for the whole hours since the epoch of a timestamp column (as stored: epoch milliseconds on SQLite,
 * timestamptz on PostgreSQL), for statements that bucket rows by hour in the database.
 */
export function epochHoursSql(dialect: 'sqlite' | 'postgres', column: string): string {
  return dialect === 'sqlite'
    ? `(${column} / 3600000)`
    : `CAST(FLOOR(EXTRACT(EPOCH FROM ${column}) / 3600) AS INTEGER)`;
}

/** A PostgreSQL array literal of text values (each quoted, its quotes and backslashes escaped), to bind as `?::text[]`. */
export function postgresArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
