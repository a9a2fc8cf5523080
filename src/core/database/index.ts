import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { cachePreparedStatements } from './sqlite/statements.js';
import { batchTransactions, type BatchingConnection, type BatchStatement } from './sqlite/transactions.js';

export type Db = Knex;
export type Dialect = 'sqlite' | 'postgres';

// int8 (counts, sums) arrives as a string from pg; amounts and counts here stay well inside 2^53.
pg.types.setTypeParser(20, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`int8 value ${value} is outside the safe integer range`);
  return parsed;
});

export class DatabaseLockedError extends Error {
  constructor(readonly file: string) {
    super(`another Till daemon is already using ${file}; SQLite allows one daemon per database file (use PostgreSQL to run several)`);
    this.name = 'DatabaseLockedError';
  }
}

export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`unsupported database URL "${url}": use postgres://... or sqlite:<path>`);
}

export function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return rest === ':memory:' ? rest : resolve(rest);
}

export interface DbOptions {
  /**
   * Hold SQLite's file lock for the life of the connection so a second daemon on the same file is refused at once
   * instead of fighting over writes.
   */
  exclusive?: boolean;
  poolMax?: number;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const dialect = dialectOf(url);
  if (dialect === 'postgres') {
    return knexFactory({
      client: 'pg',
      connection: url,
      pool: { min: 0, max: options.poolMax ?? 10 },
      acquireConnectionTimeout: 10_000,
    });
  }
  const filename = sqlitePath(url);
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const lockPragmas = options.exclusive
    ? 'PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; BEGIN EXCLUSIVE; COMMIT;'
    : 'PRAGMA journal_mode = WAL;';
  return knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One writer at a time: more connections only add SQLITE_BUSY retries.
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: BatchingConnection, done: (error: Error | null, connection: unknown) => void) {
        // A checkpoint runs inside the COMMIT that crosses the threshold, holding the one connection, and copies each
        // page once however often the WAL holds it: at 10,000 pages (a WAL of about 40 MB) the pages every purchase
        // touches (the outbox's last leaf, index tails) are copied far less often than at SQLite's 1,000. Measured in
        // the checkout benchmark: about 6 % more purchases per second; with no checkpoints at all, about 20 %.
        const pragmas = 'PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 10000;';
        connection.exec(`${lockPragmas} ${pragmas}`, (error) => {
          if (error && (error as { code?: string }).code === 'SQLITE_BUSY') {
            done(new DatabaseLockedError(filename), connection);
            return;
          }
          if (!error) {
            cachePreparedStatements(connection);
            batchTransactions(connection);
          }
          done(error, connection);
        });
      },
    },
    acquireConnectionTimeout: 10_000,
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

export function dialect(db: Db): Dialect {
  const client = (db.client as { config: { client: string } }).config.client;
  return client === 'pg' ? 'postgres' : 'sqlite';
}

/**
 * Runs fn in a transaction, or inside the caller's transaction when db already is one. On SQLite the caller resumes
 * one turn of the event loop after the transaction ends: whoever waits for the one connection is a few microtasks from
 * sending its next statement, while what follows a transaction here is usually the long part of a request (rendering
 * its response), which would otherwise run first and keep the connection idle. Measured: about 7 % more purchases
 * per second in the checkout benchmark.
 */
export async function inTransaction<T>(db: Db, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Knex.Transaction);
  if (dialect(db) !== 'sqlite') return db.transaction(fn);
  try {
    return await db.transaction(fn);
  } finally {
    await afterSqliteTransaction();
  }
}

/** The turn of the event loop a SQLite transaction's caller gives up when it ends (see inTransaction). */
export function afterSqliteTransaction(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Statements of one transaction that do not depend on each other, sent at once. On SQLite each statement is a trip to
 * libuv's thread pool and back to a busy main thread while the one connection is held; sent together they cost about
 * one trip. Answers when all have finished, even if one failed, so none is still running when the caller's
 * transaction rolls back; then throws the first failure in the order given (on PostgreSQL, where one connection runs
 * them in that order, the one that aborted the transaction). Only for rows whose references are already written:
 * SQLite may run them in any order.
 */
export async function together<T extends readonly unknown[]>(...work: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** A statement built but not run yet (a knex builder runs when it is awaited), for `commitWith`. */
export type Write = Knex.QueryBuilder | Knex.Raw;

/**
 * A transaction's last statements, whose answers nobody reads, run in the order given (parents first) and sent with
 * its COMMIT: on SQLite in one call to the driver, with BEGIN when nothing was sent before them (see
 * sqlite-transactions.ts). Where that cannot be done, knex commits as usual after them: on PostgreSQL they are sent
 * together (one connection runs them in the order sent, see `together`); on SQLite (a nested transaction, a value that
 * cannot be a literal) one after another, as the driver may run statements sent together in any order. They must be
 * the transaction's last statements: on SQLite it has committed when this answers, and a statement after it fails.
 */
export async function commitWith(trx: Db, ...writes: Array<Write | null | undefined>): Promise<void> {
  const statements = writes.filter((write): write is Write => !!write);
  if (dialect(trx) !== 'sqlite') {
    await together(...statements);
    return;
  }
  const batch = trx.isTransaction ? compileWrites(statements) : null;
  if (batch) {
    const connection = (await trx.client.acquireConnection()) as BatchingConnection;
    const committed = await new Promise<boolean>((resolve, reject) => connection.commitWith(batch, (error, done) => (error ? reject(error) : resolve(done === true))));
    if (committed) return;
  }
  for (const statement of statements) await statement;
}

/**
 * The writes as SQL and values, without running them (empty statements left out), or null when one compiles to
 * several statements.
 */
export function compileWrites(writes: ReadonlyArray<Write | null | undefined>): BatchStatement[] | null {
  const compiled: BatchStatement[] = [];
  for (const write of writes) {
    if (!write) continue;
    const sql = write.toSQL() as Knex.Sql | Knex.Sql[];
    if (Array.isArray(sql)) return null;
    if (sql.sql !== '') compiled.push({ sql: sql.sql, bindings: sql.bindings });
  }
  return compiled;
}

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

/**
 * A value guarded by a condition, for a transaction sent without reading its answers (see commitWith): `CASE WHEN
 * condition THEN value END`, NULL when the condition fails. Written to a NOT NULL column it fails the statement, and
 * so the transaction, where a conditional UPDATE would have matched nothing; `isGuardFailure` recognizes it.
 */
export function guarded(db: Db, condition: string, value: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  return db.raw(`CASE WHEN ${condition} THEN ${value} END`, bindings);
}

/** The failure of a `guarded` value written to `table.column`, on either dialect. */
export function isGuardFailure(error: unknown, table: string, column: string): boolean {
  const e = error as { code?: string; message?: string; table?: string; column?: string };
  if (e?.code === '23502') return e.table === table && e.column === column;
  return e?.code === 'SQLITE_CONSTRAINT' && (e.message ?? '').includes(`NOT NULL constraint failed: ${table}.${column}`);
}

/** Unique-constraint violations on either dialect, so services can turn races into domain errors. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(e.message ?? '');
}
