import { transaction, type Db } from '../database/index.js';
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
 * On SQLite, keeps `event_customer_index` close behind ingestion: after every MERGE_EVERY events written, a merge in
 * the background (one at a time). The first ingestion after a start merges whatever an earlier run left behind.
 * On PostgreSQL it does nothing: the index there is the database's own.
 */
export function createCustomerIndexer(deps: { db: Db; background: Background }) {
  const { db, background } = deps;
  const lazy = customerIndexRepository(db).lazy;
  let written = MERGE_EVERY;
  let merging = false;

  function merge(): void {
    merging = true;
    background.run('events: customer index merge', async () => {
      try {
        for (;;) {
          written = 0;
          const covered = await transaction(db, (trx) => customerIndexRepository(trx).merge(MERGE_MOST));
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
      if (written >= MERGE_EVERY && !merging) merge();
    },
  };
}
