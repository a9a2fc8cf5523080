import { inlineStatements } from './literals.js';
import type { SqliteConnection } from './statements.js';

/**
 * Transactions on the one SQLite connection in fewer sqlite3 calls. Each call is a trip to libuv's thread pool and
 * back while the connection every request waits for is held, and costs the main thread the wake-up of a pool thread;
 * only `Database#exec` runs several statements in one call, and it takes no parameters.
 *
 * - BEGIN is held back until the transaction's first statement, and a transaction that sends none costs nothing.
 * - `commitWith` (behind the module's `finishWith`) sends a transaction's last writes, whose answers nobody reads, and its COMMIT in one `exec`, with
 *   their values written in as literals (literals.ts); BEGIN too when nothing was sent before them. Knex's
 *   own COMMIT that follows is then answered here, without a trip.
 * - `commitStatements` runs a whole transaction of such writes in one call, for the group commit (group-commit.ts), which runs write-only transactions.
 *
 * Knex gives a transaction the connection until it ends, so what arrives between BEGIN and COMMIT is that
 * transaction's.
 */

export interface BatchStatement {
  sql: string;
  bindings: readonly unknown[];
}

export type CommitCallback = (error: Error | null, committed?: boolean) => void;

export interface BatchingConnection extends SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): unknown;
  /**
   * Runs the statements and COMMIT in one call. Answers `committed: false`, having sent nothing, when it cannot:
   * outside a transaction, inside a nested one (a savepoint), or when a value cannot be written as a literal; the
   * caller then runs them as usual. On a failure the transaction is rolled back, here, before the error is answered.
   */
  commitWith(statements: readonly BatchStatement[], callback: CommitCallback): void;
  /**
   * A transaction of its own from statements already written with their values (literals.ts): BEGIN, them and
   * COMMIT in one call, outside any transaction knex holds (the caller has the connection from the pool). On a
   * failure it is rolled back before the error is answered.
   */
  commitStatements(statements: readonly string[], callback: (error: Error | null) => void): void;
}

/** A sqlite3 call as sent: its statements (one, but for `exec`), and whether another call was still running. */
export interface SqliteCall {
  statements: string[];
  joined: boolean;
}

const observers = new Set<(call: SqliteCall) => void>();

/** Reports every sqlite3 call this process sends from now on (for tests that count trips; never timings). */
export function onSqliteCalls(observer: (call: SqliteCall) => void): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

type Callback = Parameters<SqliteConnection['all']>[2];

/**
 * idle: no transaction. deferred: knex sent BEGIN, nothing was sent yet. beginning: BEGIN is running, calls wait.
 * open: BEGIN ran. committed / aborted: a commitWith ended the transaction; knex has yet to send its COMMIT or
 * ROLLBACK.
 */
type State = 'idle' | 'deferred' | 'beginning' | 'open' | 'committed' | 'aborted';

const BEGIN = /^\s*begin\s*;?\s*$/i;
const COMMIT = /^\s*commit\b/i;
const ROLLBACK = /^\s*rollback\s*;?\s*$/i;
const SAVEPOINT = /^\s*savepoint\b/i;
const LEAVE_SAVEPOINT = /^\s*(release|rollback\s+to)\b/i;
// What knex reads from the callback's `this` after a statement that was answered without running.
const NOTHING_RAN = { lastID: 0, changes: 0 };

export function batchTransactions(connection: BatchingConnection): void {
  const direct = { all: connection.all.bind(connection), run: connection.run.bind(connection) };
  const exec = connection.exec.bind(connection);
  let state: State = 'idle';
  // Knex's nested transactions still open, as savepoints: commitWith inside one must not commit the outer.
  let savepoints = 0;
  let waiting: Array<(error: Error | null) => void> = [];
  let running = 0;

  function observe(statements: string[]): void {
    if (observers.size === 0) return;
    const call = { statements, joined: running > 0 };
    for (const observer of observers) observer(call);
  }

  function answer(callback: Callback, error: Error | null): void {
    process.nextTick(() => callback.call(NOTHING_RAN, error, error ? undefined : []));
  }

  function send(method: 'all' | 'run', sql: string, parameters: unknown, callback: Callback): void {
    observe([sql]);
    running += 1;
    direct[method](sql, parameters, function (this: unknown, error, result) {
      running -= 1;
      callback.call(this, error, result);
    });
  }

  function begin(): void {
    state = 'beginning';
    send('run', 'BEGIN', [], (error) => {
      // A BEGIN that failed leaves nothing to roll back: knex's ROLLBACK is answered here (see 'aborted').
      state = error ? 'aborted' : 'open';
      const resume = waiting;
      waiting = [];
      for (const go of resume) go(error);
    });
  }

  function execute(method: 'all' | 'run') {
    return (sql: string, parameters: unknown, callback: Callback): unknown => {
      if (typeof callback !== 'function') return direct[method](sql, parameters, callback);
      switch (state) {
        case 'idle':
          if (BEGIN.test(sql)) {
            state = 'deferred';
            answer(callback, null);
            return undefined;
          }
          break;
        case 'deferred':
          if (COMMIT.test(sql) || ROLLBACK.test(sql)) {
            // Nothing was sent: there is nothing to end.
            state = 'idle';
            answer(callback, null);
            return undefined;
          }
          begin();
          return execute(method)(sql, parameters, callback);
        case 'beginning':
          waiting.push((error) =>
            error ? callback.call(NOTHING_RAN, error) : execute(method)(sql, parameters, callback),
          );
          return undefined;
        case 'committed':
        case 'aborted': {
          const ended = state;
          if (COMMIT.test(sql) || ROLLBACK.test(sql)) state = 'idle';
          if (ended === 'committed' && COMMIT.test(sql)) answer(callback, null);
          else if (ended === 'aborted' && ROLLBACK.test(sql)) answer(callback, null);
          else
            answer(
              callback,
              new Error(
                `the transaction had already ${ended === 'committed' ? 'committed' : 'rolled back'} (finishWith must be its last statement): ${sql.slice(0, 60)}`,
              ),
            );
          return undefined;
        }
        case 'open':
          if (SAVEPOINT.test(sql)) savepoints += 1;
          else if (LEAVE_SAVEPOINT.test(sql)) savepoints = Math.max(0, savepoints - 1);
          else if (COMMIT.test(sql) || ROLLBACK.test(sql)) {
            state = 'idle';
            savepoints = 0;
          }
          break;
      }
      send(method, sql, parameters, callback);
      return undefined;
    };
  }

  connection.all = execute('all');
  connection.run = execute('run');
  connection.commitWith = (statements, callback) => {
    const inTransaction = state === 'deferred' || state === 'open';
    const inlined = inTransaction && savepoints === 0 ? inlineStatements(statements) : null;
    if (!inlined) {
      process.nextTick(() => callback(null, false));
      return;
    }
    const begin = state === 'deferred';
    state = 'open';
    execCommitting(inlined, begin, (error) => {
      state = error ? 'aborted' : 'committed';
      if (error) callback(error);
      else callback(null, true);
    });
  };
  connection.commitStatements = (statements, callback) => {
    if (state !== 'idle') {
      process.nextTick(() =>
        callback(new Error(`commitStatements needs the connection outside a transaction (it is ${state})`)),
      );
      return;
    }
    state = 'open';
    execCommitting(statements, true, (error) => {
      state = 'idle';
      callback(error);
    });
  };

  function execCommitting(
    statements: readonly string[],
    begin: boolean,
    callback: (error: Error | null) => void,
  ): void {
    const batch = [...(begin ? ['BEGIN'] : []), ...statements, 'COMMIT'];
    observe(batch);
    running += 1;
    exec(batch.join(';\n'), (error) => {
      running -= 1;
      if (!error) {
        callback(null);
        return;
      }
      // exec stops at the failing statement with the transaction still open (a failed COMMIT leaves it open too).
      send('run', 'ROLLBACK', [], () => callback(error));
    });
  }
}
