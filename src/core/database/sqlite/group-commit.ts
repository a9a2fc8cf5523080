import type { Db } from '../connection.js';
import type { BatchingConnection } from './transactions.js';

/**
 * On SQLite, write-only transactions (see `transaction` with `writeOnly`) that arrive while the one connection is
 * busy are committed together, as one call (BEGIN, each one's statements in arrival order, COMMIT; values written in
 * as literals): every call is a trip to the thread pool, and every COMMIT writes the pages it touched to the WAL, and
 * concurrent purchases touch the same ones (the outbox's last page, index tails). The outcome is as if they had run
 * one after another. When the group fails, it is rolled back and each transaction is run again alone, so a failure
 * (a guard, a constraint) is its own transaction's only.
 */

/** While a write-only transaction's `build` runs on SQLite (it is synchronous): what to run once its writes commit. */
let collecting: Array<() => void> | null = null;

// Transactions per call: enough to drain a busy moment, few enough that a failure's retries one by one stay short.
const MAX_GROUP = 32;

/** Runs `build`, collecting what it asks to run after the commit (see afterWriteOnlyCommit). */
export function collectingAfterCommit<T>(build: () => T): { value: T; afterCommit: Array<() => void> } {
  const afterCommit: Array<() => void> = [];
  collecting = afterCommit;
  try {
    return { value: build(), afterCommit };
  } finally {
    collecting = null;
  }
}

/**
 * Runs `hook` once the writes being built have committed, when called from a write-only transaction's `build` on
 * SQLite (where `build` gets the database, not a transaction); says whether it was. The same hook is run once.
 */
export function afterWriteOnlyCommit(hook: () => void): boolean {
  if (!collecting) return false;
  if (!collecting.includes(hook)) collecting.push(hook);
  return true;
}

/** Commits statements already written with their values, in a group with whatever else waits for the connection. */
export function groupCommit(db: Db, statements: string[]): Promise<void> {
  return groupOf(db).submit(statements);
}

interface Pending {
  statements: string[];
  resolve(): void;
  reject(error: unknown): void;
}

const groups = new WeakMap<Db, ReturnType<typeof createGroup>>();

function groupOf(db: Db) {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = createGroup(db)));
  return group;
}

function createGroup(db: Db) {
  const client = db.client as {
    acquireConnection(): Promise<BatchingConnection>;
    releaseConnection(connection: BatchingConnection): Promise<unknown>;
  };
  let queue: Pending[] = [];
  let flushing = false;

  const commit = (connection: BatchingConnection, statements: string[]) =>
    new Promise<void>((resolve, reject) =>
      connection.commitStatements(statements, (error) => (error ? reject(error) : resolve())),
    );

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queue.length > 0) {
        // Waits its turn in knex's pool; whatever arrives meanwhile joins this group.
        const connection = await client.acquireConnection();
        const group = queue.slice(0, MAX_GROUP);
        queue = queue.slice(group.length);
        try {
          await commit(
            connection,
            group.flatMap((pending) => pending.statements),
          ).then(
            () => group.forEach((pending) => pending.resolve()),
            async (error: unknown) => {
              if (group.length === 1) return group[0]!.reject(error);
              for (const pending of group)
                await commit(connection, pending.statements).then(pending.resolve, pending.reject);
            },
          );
        } finally {
          await client.releaseConnection(connection);
        }
      }
    } catch (error) {
      // The connection could not be had (the database is closing): everyone waiting hears it.
      for (const pending of queue.splice(0)) pending.reject(error);
    } finally {
      flushing = false;
    }
  }

  return {
    submit(statements: string[]): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ statements, resolve, reject });
        if (!flushing) void flush();
      });
    },
  };
}
