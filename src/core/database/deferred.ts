import type { Knex } from 'knex';
import type { Db } from './connection.js';
import type { BatchStatement } from './sqlite/transactions.js';

/**
 * A statement built but not run. A knex builder runs only when awaited, so a method that returns one says so by this
 * type and by its name (`defer…`); it is run by `finishWith` or a write-only `transaction`, or awaited by the caller.
 * Dropping one writes nothing: the linter's no-floating-promises flags it.
 */
export type Deferred = Knex.QueryBuilder | Knex.Raw;

/** Deferred statements as a list built on the fly: absent ones (a row list that was empty) are left out. */
export type DeferredList = ReadonlyArray<Deferred | null | undefined>;

/**
 * Statements of one transaction that do not depend on each other, sent at once. On SQLite each statement is a trip to
 * libuv's thread pool and back to a busy main thread while the one connection is held; sent together they cost about
 * one trip. Answers when all have finished, even if one failed, so none is still running when the caller's
 * transaction rolls back; then throws the first failure in the order given (on PostgreSQL, where one connection runs
 * them in that order, the one that aborted the transaction). Only for rows whose references are already written:
 * SQLite may run them in any order.
 */
export async function together<T extends readonly unknown[]>(
  ...work: T
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/**
 * A value guarded by a condition, for a transaction sent without reading its answers (see finishWith): `CASE WHEN
 * condition THEN value END`, NULL when the condition fails. Written to a NOT NULL column it fails the statement, and
 * so the transaction, where a conditional UPDATE would have matched nothing; `isGuardFailure` recognizes it.
 */
export function guarded(db: Db, condition: string, value: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  return db.raw(`CASE WHEN ${condition} THEN ${value} END`, bindings);
}

/** The statements as SQL and values, without running them (empty ones left out), or null when one compiles to several. */
export function compileDeferred(writes: DeferredList): BatchStatement[] | null {
  const compiled: BatchStatement[] = [];
  for (const write of writes) {
    if (!write) continue;
    const sql = write.toSQL() as Knex.Sql | Knex.Sql[];
    if (Array.isArray(sql)) return null;
    if (sql.sql !== '') compiled.push({ sql: sql.sql, bindings: sql.bindings });
  }
  return compiled;
}

/** Runs them one after another, in the order given (parents first). */
export async function runInOrder(writes: readonly Deferred[]): Promise<void> {
  for (const write of writes) await write;
}

/**
 * Statements built on another handle (the database, before a transaction that runs them began), as statements of
 * `trx`: awaited as built, they would wait for the connection the transaction holds.
 */
export function rebuiltOn(trx: Db, writes: readonly Deferred[]): Deferred[] {
  return writes.map((write) => {
    const sql = write.toSQL() as Knex.Sql | Knex.Sql[];
    if (Array.isArray(sql)) throw new Error('rebuiltOn takes statements that compile to one each');
    return sql.bindings.length > 0 ? trx.raw(sql.sql, sql.bindings as Knex.RawBinding[]) : trx.raw(sql.sql);
  });
}
