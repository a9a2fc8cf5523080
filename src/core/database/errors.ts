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

/** A unique violation of this constraint (PostgreSQL names it). */
export function isUniqueViolationOf(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === constraint;
}

/** The failure of a `guarded` value written to `table.column`, on either dialect. */
export function isGuardFailure(error: unknown, table: string, column: string): boolean {
  const e = error as { code?: string; message?: string; table?: string; column?: string };
  if (e?.code === '23502') return e.table === table && e.column === column;
  return (
    e?.code === 'SQLITE_CONSTRAINT' && (e.message ?? '').includes(`NOT NULL constraint failed: ${table}.${column}`)
  );
}

/** Runs of work that PostgreSQL may abort as a deadlock before the error reaches the caller. */
const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs `work` again when PostgreSQL aborts it as a deadlock (two transactions each waiting for a row the other
 * holds), or with an error `alsoRetried` names (another race the next run resolves), at most DEADLOCK_ATTEMPTS times.
 * Only for work that is a whole transaction of its own: nothing of an aborted run was written, so the next run starts
 * from what the other transaction committed.
 */
export async function retryingDeadlocks<T>(
  work: () => Promise<T>,
  alsoRetried: (error: unknown) => boolean = () => false,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const race = (error as { code?: string } | null)?.code === '40P01' || alsoRetried(error);
      if (!race || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
