import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { DatabaseLockedError } from './errors.js';
import { nameHotWrites, type PgConnection } from './postgres/named-statements.js';
import { cachePositionedBindings } from './postgres/positioned-bindings.js';
import { cachePreparedStatements } from './sqlite/statements.js';
import { batchTransactions, type BatchingConnection } from './sqlite/transactions.js';
import { holdFile, startCheckpointer } from './sqlite/checkpointer.js';

export type Db = Knex;
/** A Db inside a transaction: everything run through it is part of that transaction. */
export type Transaction = Knex.Transaction;
export type Dialect = 'sqlite' | 'postgres';

// int8 (counts, sums) arrives as a string from pg; amounts and counts here stay well inside 2^53.
pg.types.setTypeParser(20, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`int8 value ${value} is outside the safe integer range`);
  return parsed;
});

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
   * The daemon's SQLite file: hold its lock for the life of the connection so a second daemon on the same file is
   * refused at once (DatabaseLockedError) instead of fighting over writes, and checkpoint its WAL beside the writer
   * (sqlite/checkpointer.ts).
   */
  exclusive?: boolean;
  poolMax?: number;
}

/** The oldest PostgreSQL Till runs on: ingestion merges running totals with MERGE, which came with 15. */
export const POSTGRES_MIN_VERSION = 150000;

/** Why a server of this `server_version_num` cannot be used, or null when it can. */
export function unsupportedPostgres(versionNum: number): Error | null {
  if (versionNum >= POSTGRES_MIN_VERSION) return null;
  const major = Number.isFinite(versionNum) ? String(Math.floor(versionNum / 10000)) : 'unknown';
  return new Error(`Till needs PostgreSQL 15 or later; this server runs PostgreSQL ${major}`);
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const dialect = dialectOf(url);
  if (dialect === 'postgres') {
    const db = knexFactory({
      client: 'pg',
      connection: url,
      pool: {
        min: 0,
        max: options.poolMax ?? 10,
        afterCreate(connection: PgConnection, done: (error: Error | null, connection: unknown) => void) {
          nameHotWrites(connection);
          connection.query(
            'SHOW server_version_num',
            (error: Error | null, result?: { rows: Array<Record<string, string>> }) =>
              done(error ?? unsupportedPostgres(Number(result?.rows[0]?.server_version_num)), connection),
          );
        },
      },
      acquireConnectionTimeout: 10_000,
    });
    cachePositionedBindings(db.client as object);
    return db;
  }
  const filename = sqlitePath(url);
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  // The daemon's file: one process holds it, and its WAL is checkpointed beside the writing connection
  // (sqlite/checkpointer.ts).
  const held = options.exclusive === true && filename !== ':memory:';
  return knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One writer at a time: more connections only add SQLITE_BUSY retries.
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: BatchingConnection, done: (error: Error | null, connection: unknown) => void) {
        setUpSqlite(connection, filename, held).then(
          () => done(null, connection),
          (error: Error) => done(error, connection),
        );
      },
    },
    acquireConnectionTimeout: 10_000,
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

/**
 * A checkpoint runs inside the COMMIT that crosses the threshold, holding the one connection, and copies each page
 * once however often the WAL holds it: at 40,000 pages (a WAL file of up to about 160 MB) the pages every purchase and
 * renewal touches (the outbox's last leaf, index tails, the jobs' indexes) are copied far less often than at SQLite's
 * 1,000 (bench/checkout/README.md) or at 10,000 (bench/renewals/README.md: 4–8 % more renewals a second). On the
 * daemon's file the checkpointer has copied most of them by then (sqlite/checkpointer.ts).
 */
const SQLITE_PRAGMAS =
  'PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 40000;';

async function setUpSqlite(connection: BatchingConnection, filename: string, held: boolean): Promise<void> {
  const release = held ? await holdFile(filename) : null;
  if (held && !release) throw new DatabaseLockedError(filename);
  try {
    await new Promise<void>((resolve, reject) =>
      connection.exec(SQLITE_PRAGMAS, (error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    await release?.();
    throw error;
  }
  cachePreparedStatements(connection);
  batchTransactions(connection);
  if (!release) return;
  const stopCheckpoints = await startCheckpointer(filename).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  const closeConnection = connection.close.bind(connection);
  // The checkpointer first, so that the writer's close, the last, checkpoints the WAL and removes it; the lock last.
  connection.close = (callback?: (error: Error | null) => void) => {
    void stopCheckpoints().then(() =>
      closeConnection((error) => {
        void release().then(() => callback?.(error));
      }),
    );
    return undefined;
  };
}

/**
 * The same object for a database and for every transaction on it (knex shares the client's configuration), so that
 * state kept per database in a WeakMap is found from either.
 */
export function databaseIdentity(db: Db): object {
  return (db.client as { config: object }).config;
}

/** State kept per database (its transactions included), made by `create` on first use and dropped with the database. */
export function perDatabase<T>(create: () => T): (db: Db) => T {
  const states = new WeakMap<object, T>();
  return (db) => {
    const identity = databaseIdentity(db);
    let state = states.get(identity);
    if (state === undefined) states.set(identity, (state = create()));
    return state;
  };
}

export function dialect(db: Db): Dialect {
  const client = (db.client as { config: { client: string } }).config.client;
  return client === 'pg' ? 'postgres' : 'sqlite';
}
