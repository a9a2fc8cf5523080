/**
 * Reuses prepared statements on a sqlite3 connection. Knex runs every query through `Database#all` or `#run`, which
 * prepare, execute and finalize a fresh statement: three trips to libuv's thread pool, on the one connection every
 * request waits for. A cached statement is one trip, and SQLite skips parsing and planning. Knex's SQL text is stable
 * per query shape (values are bound), so a few hundred entries cover the whole daemon.
 */

type Callback = (this: unknown, error: Error | null, result?: unknown) => void;

interface Statement {
  all(parameters: unknown[], callback: Callback): unknown;
  run(parameters: unknown[], callback: Callback): unknown;
  finalize(callback?: (error: Error | null) => void): unknown;
}

export interface SqliteConnection {
  all(sql: string, parameters: unknown, callback: Callback): unknown;
  run(sql: string, parameters: unknown, callback: Callback): unknown;
  prepare(sql: string, callback: (error: Error | null) => void): Statement;
  close(callback?: (error: Error | null) => void): unknown;
}

// Savepoint names change with every nested transaction and DDL runs once: caching either only evicts useful entries.
const CACHEABLE = /^\s*(select|insert|update|delete|with|pragma|begin|commit|rollback;?\s*$)/i;
const COMMIT = /^\s*commit\b/i;
/**
 * Longer texts are not kept: a statement this long has its values written in (literals.ts), so its text is never sent
 * twice, and a prepared statement of thousands of literal rows holds megabytes until it is evicted.
 */
const MAX_CACHED_SQL = 256 * 1024;

interface Entry {
  statement: Statement;
  /**
   * Calls made before the prepare is known to have worked. When a prepare fails, sqlite3 drops the calls queued on
   * the statement without calling them back, so they are failed from here; the first completed call clears this.
   */
  waiting: Array<(error: Error) => void> | null;
}

export function cachePreparedStatements(connection: SqliteConnection, maxEntries = 500): void {
  const entries = new Map<string, Entry>();
  const directAll = connection.all.bind(connection);
  const directRun = connection.run.bind(connection);
  const directClose = connection.close.bind(connection);

  function drop(sql: string, entry: Entry): void {
    if (entries.get(sql) !== entry) return;
    entries.delete(sql);
    entry.statement.finalize(() => undefined);
  }

  function entryFor(sql: string): Entry {
    const cached = entries.get(sql);
    if (cached) {
      // Most recently used last, so eviction takes the least recently used first.
      entries.delete(sql);
      entries.set(sql, cached);
      return cached;
    }
    const entry: Entry = { statement: undefined as unknown as Statement, waiting: [] };
    entry.statement = connection.prepare(sql, (error) => {
      if (!error) return;
      // sqlite3 has finalized the statement itself.
      if (entries.get(sql) === entry) entries.delete(sql);
      const waiting = entry.waiting ?? [];
      entry.waiting = null;
      for (const fail of waiting) fail(error);
    });
    entries.set(sql, entry);
    if (entries.size > maxEntries) {
      const [oldestSql, oldest] = entries.entries().next().value as [string, Entry];
      drop(oldestSql, oldest);
    }
    return entry;
  }

  function execute(method: 'all' | 'run', direct: typeof directAll) {
    return (sql: string, parameters: unknown, callback: Callback): unknown => {
      if (typeof callback !== 'function' || sql.length > MAX_CACHED_SQL || !CACHEABLE.test(sql))
        return direct(sql, parameters, callback);
      const entry = entryFor(sql);
      let answered = false;
      // Knex reads lastID and changes from the callback's `this`, which is the statement either way.
      const answer = function (this: unknown, error: Error | null, result?: unknown): void {
        if (answered) return;
        answered = true;
        if (!error) entry.waiting = null;
        // An error may leave the statement mid-step; a fresh one is cheap next time.
        else drop(sql, entry);
        if (error && COMMIT.test(sql)) {
          // A COMMIT that fails (a deferred foreign key, a full disk) leaves SQLite's transaction open, and knex
          // does not roll back after a failed COMMIT: the one connection would refuse every later BEGIN.
          directRun('ROLLBACK', [], () => callback.call(this, error, result));
          return;
        }
        callback.call(this, error, result);
      };
      entry.waiting?.push((error) => answer.call(entry.statement, error));
      return entry.statement[method](Array.isArray(parameters) ? parameters : [], answer);
    };
  }

  connection.all = execute('all', directAll);
  connection.run = execute('run', directRun);
  // SQLite refuses to close a connection with statements still prepared.
  connection.close = (callback?: (error: Error | null) => void) => {
    const open = [...entries.values()];
    entries.clear();
    let left = open.length;
    if (left === 0) return directClose(callback);
    for (const { statement } of open) {
      statement.finalize(() => {
        left -= 1;
        if (left === 0) directClose(callback);
      });
    }
    return undefined;
  };
}
