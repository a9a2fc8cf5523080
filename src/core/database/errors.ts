export class DatabaseLockedError extends Error {
  constructor(readonly file: string) {
    super(
      `another Till daemon is already using ${file}; SQLite allows one daemon per database file (use PostgreSQL to run several)`,
    );
    this.name = 'DatabaseLockedError';
  }
}

/** Unique-constraint violations on either dialect, so services can turn races into domain errors. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string };
  return e?.code === '23505' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(e.message ?? ''));
}

/** The failure of a `guarded` value written to `table.column`, on either dialect. */
export function isGuardFailure(error: unknown, table: string, column: string): boolean {
  const e = error as { code?: string; message?: string; table?: string; column?: string };
  if (e?.code === '23502') return e.table === table && e.column === column;
  return (
    e?.code === 'SQLITE_CONSTRAINT' && (e.message ?? '').includes(`NOT NULL constraint failed: ${table}.${column}`)
  );
}
