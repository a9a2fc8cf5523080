/**
 * The database: its connection, its dialect, and one way to run a transaction.
 *
 * - `transaction(db, work, options?)` runs `work` in a transaction, or joins the caller's when `db` already is one.
 *   Options: `savepoint` (a nested transaction that may fail alone), `relaxed` (the webhook worker's bookkeeping:
 *   no disk flush at commit, advisory locks on PostgreSQL), `writeOnly` (`work` returns deferred statements,
 *   synchronously; on SQLite such transactions may be committed together).
 * - `finishWith(trx, ...deferred)` ends a transaction with statements whose answers nobody reads, sent with its
 *   COMMIT (on SQLite in one driver call).
 * - A `Deferred` is a statement built but not run; repository methods that return one are named `defer…`.
 *
 * The SQLite speed-ups (prepared statements, BEGIN/COMMIT batching, values written as literals, the group commit)
 * live under ./sqlite/ and are reached only through this module.
 */
export {
  createDb,
  databaseIdentity,
  dialect,
  perDatabase,
  dialectOf,
  sqlitePath,
  type Db,
  type DbOptions,
  type Dialect,
  type Transaction,
} from './connection.js';
export { finishWith, transaction, type TransactionOptions, type WriteOnlyOptions } from './transaction.js';
export { guarded, rebuiltOn, together, type Deferred, type DeferredList } from './deferred.js';
export { afterWriteOnlyCommit } from './sqlite/group-commit.js';
export {
  DatabaseLockedError,
  isGuardFailure,
  isUniqueViolation,
  isUniqueViolationOf,
  retryingDeadlocks,
} from './errors.js';
export {
  epochHoursSql,
  parseJson,
  postgresArray,
  rawRows,
  toBool,
  toDate,
  toDateOrNull,
  toStringOrNull,
} from './rows.js';
export { migrateLatest, pendingMigrations, type MigrationContext } from './migrate.js';
export { orWhereContains, orWhereStartsWith, whereContains } from './search.js';
export { literalInsert } from './bulk.js';
export { changeMark, keptWhileUnchanged, markChanged, markStoredChange, storedChangeMark } from './change-marks.js';
/** For tests that count the driver calls a path makes (never timings). */
export { onSqliteCalls, type SqliteCall } from './sqlite/transactions.js';
