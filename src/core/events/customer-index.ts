import { perDatabase, transaction, type Db } from '../database/index.js';
import type { Background } from '../kernel/background.js';
import { customerIndexRepository } from '../meters/events-by-customer.js';

/**
 * Events written before the customer index is brought up to date. Sorted together, a customer's entries from that
 * many events share pages; one merge holds SQLite's connection for about as long as a few ingestion batches
 * (bench/events/README.md), and until it runs those events are read by seq.
 */
export const MERGE_EVERY = 50_000;

/**
 * The most one merge covers: twice MERGE_EVERY, so that a merge also takes the events written between its start and
 * its turn on the connection, instead of leaving those few to a second merge at once. A merge writes about a page per
 * customer however few events it covers, so a small one right after every full one nearly doubled the time merges
 * held the connection (bench/events/README.md).
 */
const MERGE_MOST = 2 * MERGE_EVERY;

/**
 * Staged rows one transaction moves into the index, at least. A merge writes about a page per customer, 0.3 s for
 * 50,000 events at 2,000,000 and more as the index grows; in one transaction that held SQLite's connection, and every
 * ingestion batch behind it, for as long. In slices, batches run between them: slices of 1,000 to 2,000 rows gave the
 * lowest p99 per batch (bench/events/README.md). But each slice waits its turn behind the batches queued for the
 * connection, so under a steady load a slice takes at least as many rows as were ingested while the one before it
 * waited and ran: with fixed slices of 2,000 or 5,000 the index fell a million events behind at 5,000,000.
 */
export const MERGE_SLICE = 2_000;

const mergesOf = perDatabase((): { last: Promise<unknown> } => ({ last: Promise.resolve() }));

/**
 * SQLite: up to `limit` of the events after the index's mark merged into it: sorted into a staging table in one
 * transaction, moved into the index a slice a transaction (`slice` rows, or as many as `ingested` says were written
 * since the slice before, if more), then the mark moved. One merge at a time per database. A merge cut short (a stop,
 * a failure) leaves entries past the mark, which readers tolerate and the next merge skips. Answers how many events it
 * covered (0 on PostgreSQL).
 */
export function mergeCustomerIndex(
  db: Db,
  limit: number,
  pace: { slice?: number; ingested?: () => number } = {},
): Promise<number> {
  const { slice = MERGE_SLICE, ingested = () => 0 } = pace;
  const state = mergesOf(db);
  const run = state.last.then(async () => {
    const staged = await transaction(db, (trx) => customerIndexRepository(trx).stage(limit));
    if (!staged) return 0;
    // What was written before the staging is staged.
    ingested();
    for (let first = 1; first <= staged.rows;) {
      const last = Math.min(first + Math.max(slice, ingested()) - 1, staged.rows);
      // Write-only: on SQLite BEGIN, the slice and COMMIT go in one call, not three waits for the event loop.
      await transaction(db, (on) => [customerIndexRepository(on).mergeStaged(first, last)], { writeOnly: true });
      first = last + 1;
    }
    if (!(await transaction(db, (trx) => customerIndexRepository(trx).finishStaged(staged))))
      throw new Error(
        'the customer index merge lost its staging table (a new connection); the next merge stages again',
      );
    return staged.to - staged.from;
  });
  state.last = run.catch(() => undefined);
  return run;
}

/**
 * On SQLite, keeps `event_customer_index` close behind ingestion: after every MERGE_EVERY events written, a merge in
 * the background (one at a time). The first ingestion after a start merges whatever an earlier run left behind.
 * On PostgreSQL it does nothing: the index there is the database's own.
 */
export function createCustomerIndexer(deps: { db: Db; background: Background }) {
  const { db, background } = deps;
  const lazy = customerIndexRepository(db).lazy;
  let written = MERGE_EVERY;
  let merging = false;
  // Events written since a merge last asked (its pace).
  let unasked = 0;
  const sinceAsked = () => {
    const count = unasked;
    unasked = 0;
    return count;
  };

  function merge(): void {
    merging = true;
    background.run('events: customer index merge', async () => {
      try {
        for (;;) {
          written = 0;
          const covered = await mergeCustomerIndex(db, MERGE_MOST, { ingested: sinceAsked });
          // Again only when more was left than one merge covers (an earlier run's backlog), or as many events were
          // written meanwhile as start one.
          if (covered < MERGE_MOST && written < MERGE_EVERY) break;
        }
      } finally {
        merging = false;
      }
    });
  }

  return {
    /** Ingestion wrote `count` events. */
    wrote(count: number): void {
      if (!lazy) return;
      written += count;
      unasked += count;
      if (written >= MERGE_EVERY && !merging) merge();
    },
  };
}
