import type { Db, Transaction } from './connection.js';
import { dialect } from './connection.js';
import { compileDeferred, runInOrder, together, type Deferred, type DeferredList } from './deferred.js';
import { collectingAfterCommit, groupCommit } from './sqlite/group-commit.js';
import { inlineStatements } from './sqlite/literals.js';
import type { BatchingConnection } from './sqlite/transactions.js';

export interface TransactionOptions {
  /**
   * Inside a caller's transaction, a nested one (a savepoint) that can fail alone, instead of joining the caller's.
   */
  savepoint?: boolean;
  /**
   * For the webhook worker's bookkeeping: on PostgreSQL the commit does not wait for the disk flush (should the server
   * itself crash, the last claims or outcomes may be lost, which only means an event is sent again with its
   * webhook-id), and these transaction-scoped advisory locks are taken first, in the order given, in the same round
   * trip. On SQLite (WAL, synchronous=NORMAL) commits already skip the flush. Nobody waits for its answer, so it gives
   * up no event-loop turn.
   */
  relaxed?: boolean | { advisoryLocks?: readonly number[] };
}

export interface WriteOnlyOptions {
  /**
   * The transaction only writes and reads none of its answers: `build` returns its statements, parents first,
   * synchronously. On SQLite it may be committed together with others waiting for the connection (one call for all;
   * sqlite/group-commit.ts), so `build` gets what to build on (a transaction, or on SQLite the database itself: they
   * are compiled, never run through it).
   */
  writeOnly: true;
}

/**
 * Runs `work` in a transaction, or inside the caller's transaction when `db` already is one (unless `savepoint`).
 * On SQLite the caller resumes one turn of the event loop after the transaction ends: whoever waits for the one
 * connection is a few microtasks from sending its next statement, while what follows a transaction here is usually the
 * long part of a request (rendering its response), which would otherwise run first and keep the connection idle.
 */
export function transaction<T>(
  db: Db,
  work: (trx: Transaction) => Promise<T>,
  options?: TransactionOptions,
): Promise<T>;
export function transaction(db: Db, build: (on: Db) => DeferredList, options: WriteOnlyOptions): Promise<void>;
export function transaction<T>(
  db: Db,
  work: ((trx: Transaction) => Promise<T>) | ((on: Db) => DeferredList),
  options: TransactionOptions | WriteOnlyOptions = {},
): Promise<T | void> {
  if ('writeOnly' in options) return writeOnlyTransaction(db, work as (on: Db) => DeferredList);
  return readWriteTransaction(db, work as (trx: Transaction) => Promise<T>, options);
}

async function readWriteTransaction<T>(
  db: Db,
  work: (trx: Transaction) => Promise<T>,
  options: TransactionOptions,
): Promise<T> {
  if (db.isTransaction && !options.savepoint) return work(db as Transaction);
  const { relaxed } = options;
  if (relaxed) {
    return db.transaction(async (trx) => {
      if (dialect(trx) === 'postgres') {
        const locks = relaxed === true ? [] : (relaxed.advisoryLocks ?? []);
        await trx.raw(
          `SELECT set_config('synchronous_commit', 'off', true)${locks.map(() => ', pg_advisory_xact_lock(?)').join('')}`,
          locks,
        );
      }
      return work(trx);
    });
  }
  if (db.isTransaction || dialect(db) !== 'sqlite') return db.transaction(work);
  try {
    return await db.transaction(work);
  } finally {
    await afterSqliteTransaction();
  }
}

/** The turn of the event loop a SQLite transaction's caller gives up when it ends (see transaction). */
function afterSqliteTransaction(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Ends the transaction with these statements, whose answers nobody reads, run in the order given (parents first) and
 * sent with its COMMIT: on SQLite in one call to the driver, with BEGIN when nothing was sent before them
 * (sqlite/transactions.ts). Where that cannot be done, knex commits as usual after them: on PostgreSQL they are sent
 * together (one connection runs them in the order sent, see `together`); on SQLite (a savepoint, a value that cannot
 * be a literal) one after another, as the driver may run statements sent together in any order. They must be the
 * transaction's last statements: on SQLite it has committed when this answers, and a statement after it fails.
 * True when the transaction is committed (the COMMIT went with them); false when knex still has to commit it.
 */
export async function finishWith(trx: Db, ...writes: DeferredList): Promise<boolean> {
  const statements = writes.filter((write): write is Deferred => !!write);
  if (dialect(trx) !== 'sqlite') {
    await together(...statements);
    return false;
  }
  const batch = trx.isTransaction ? compileDeferred(statements) : null;
  if (batch) {
    const connection = (await trx.client.acquireConnection()) as BatchingConnection;
    const committed = await new Promise<boolean>((resolve, reject) =>
      connection.commitWith(batch, (error, done) => (error ? reject(error) : resolve(done === true))),
    );
    if (committed) return true;
  }
  await runInOrder(statements);
  return false;
}

/**
 * What cannot be written as literals runs in a transaction of its own, as does everything on PostgreSQL, where the
 * statements are sent together (see finishWith), but for a single statement, sent alone (its own transaction). Resolves once committed; on SQLite one event-loop turn later.
 */
async function writeOnlyTransaction(db: Db, build: (on: Db) => DeferredList): Promise<void> {
  const alone = () =>
    readWriteTransaction(
      db,
      async (trx) => {
        await finishWith(trx, ...build(trx));
      },
      {},
    );
  if (db.isTransaction) return alone();
  if (dialect(db) !== 'sqlite') {
    // One statement is a transaction of its own: BEGIN and COMMIT would only add two round trips. Built on the
    // database, what it asks to run after its commit is collected here, as on SQLite.
    const { value, afterCommit } = collectingAfterCommit(() => build(db));
    const writes = value.filter((write): write is Deferred => !!write);
    if (writes.length === 1) {
      await writes[0];
      for (const hook of afterCommit) hook();
      return;
    }
    // Built on the database, the others are never sent: they are built again on the transaction (build is pure).
    return alone();
  }
  const { value: writes, afterCommit } = collectingAfterCommit(() => build(db));
  const compiled = compileDeferred(writes);
  const statements = compiled && inlineStatements(compiled);
  if (!statements) return alone();
  try {
    await groupCommit(db, statements);
  } finally {
    await afterSqliteTransaction();
  }
  for (const hook of afterCommit) hook();
}
