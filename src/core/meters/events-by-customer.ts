import type { Knex } from 'knex';
import { dialect, type Db, type Deferred } from '../database/index.js';
import { lastEventSeq } from './event-seq.js';

/** The connection's own table that a merge sorts into (SQLite's `temp` schema: never written to the file). */
const STAGING = 'temp.customer_index_staged';

/**
 * Event seqs per epoch of the index (its first key): a merge's entries go to the newest epoch's part of the index, at
 * most a few thousand pages, instead of a page each anywhere in it; a reader looks a customer up once per epoch
 * (migrations/20270105000000_event_customer_index_by_epoch.ts says why, and assigned the epochs of the index before
 * it with this same width).
 */
const EPOCH_EVENTS = 262_144;

/** A merge staged: the events after `from` up to `to`, `rows` of them with a customer. */
export interface StagedMerge {
  from: number;
  to: number;
  rows: number;
}

/**
 * How events are found by customer. PostgreSQL: the `events (customer_id, timestamp)` index. SQLite: the
 * `event_customer_index` table, filled in bulk (staged, then merged a slice at a time: events/customer-index.ts) up to
 * the mark in `event_index_marks`, plus the events after the mark, read by seq
 * (migrations/20261228000000_event_customer_index.ts says why; it is keyed by customer and seq since
 * 20261231000100_event_customer_index_by_seq.ts, and first by epoch since 20270105000000). While a merge is under way the index also holds some entries past
 * the mark: a reader matches an event by either, so none is counted twice.
 */
export function customerIndexRepository(db: Db) {
  const lazy = dialect(db) === 'sqlite';
  return {
    lazy,

    /**
     * An organization's condition on a query that has a better path than the organization's index by time (the
     * customers' entries, the newest events by seq): on SQLite written so that the planner does not pick that index.
     */
    whereOrganizations(query: Knex.QueryBuilder, organizationIds: readonly string[]): void {
      if (!lazy) query.whereIn('organization_id', [...organizationIds]);
      else query.whereRaw(`+organization_id IN (${organizationIds.map(() => '?').join(', ')})`, [...organizationIds]);
    },

    /** A condition (for `where` or `orWhere`) matching the events of these customers (by customer id). */
    ofCustomers(ids: readonly string[]): (who: Knex.QueryBuilder) => void {
      return (who) => {
        if (!lazy) {
          who.whereIn('customer_id', [...ids]);
          return;
        }
        // Each customer looked up in each epoch, from the first to the newest (the index's first column).
        who
          .whereRaw(
            `seq IN (WITH RECURSIVE epochs(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM epochs WHERE n < (SELECT max(epoch) FROM event_customer_index)) SELECT i.seq FROM epochs CROSS JOIN event_customer_index AS i ON i.epoch = epochs.n AND i.customer_id IN (${ids.map(() => '?').join(', ')}))`,
            [...ids],
          )
          .orWhere((tail) => {
            tail
              .where('seq', '>', db('event_index_marks').where('name', 'customer').select('seq'))
              .whereIn('customer_id', [...ids]);
          });
      };
    },

    /** SQLite: how many events are after the mark. */
    async unindexed(): Promise<number> {
      if (!lazy) return 0;
      const row = (await db('events')
        .select(db.raw("coalesce(max(seq), 0) - (SELECT seq FROM event_index_marks WHERE name = 'customer') AS n"))
        .first()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },

    /**
     * SQLite: the events after the mark, up to `limit` of them, sorted by customer into a staging table of this
     * connection, from which `mergeStaged` moves them into the index a slice at a time. Null when there are none.
     */
    async stage(limit: number): Promise<StagedMerge | null> {
      if (!lazy) return null;
      const mark = (await db('event_index_marks').where('name', 'customer').first('seq')) as { seq: number | string };
      const from = Number(mark.seq);
      const to = Math.min(await lastEventSeq(db), from + limit);
      if (to <= from) return null;
      await db.raw(
        `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (epoch INTEGER NOT NULL, customer_id TEXT NOT NULL, seq INTEGER NOT NULL)`,
      );
      await db.raw(`DELETE FROM ${STAGING}`);
      // Emptied, the table numbers its rows from 1 again, in the order inserted: the index's.
      await db.raw(
        `INSERT INTO ${STAGING} (epoch, customer_id, seq) SELECT seq / ${EPOCH_EVENTS}, customer_id, seq FROM events WHERE seq > ? AND seq <= ? AND customer_id IS NOT NULL ORDER BY 1, 2, 3`,
        [from, to],
      );
      const staged = (await db.raw(`SELECT count(*) AS n FROM ${STAGING}`)) as Array<{ n: number }>;
      return { from, to, rows: Number(staged[0]?.n ?? 0) };
    },

    /**
     * SQLite: staged rows `first` to `last` into the index. An entry already there (a merge cut short by a stop, then
     * staged again) is left as it is: events never change after they are written. Not run: the caller runs it, in a
     * write-only transaction.
     */
    mergeStaged(first: number, last: number): Deferred | null {
      if (!lazy) return null;
      return db.raw(
        `INSERT OR IGNORE INTO event_customer_index (epoch, customer_id, seq) SELECT epoch, customer_id, seq FROM ${STAGING} WHERE rowid BETWEEN ? AND ?`,
        [first, last],
      );
    },

    /**
     * SQLite: the mark moved past a staged merge once every slice is in. False, and the mark left, when the staging
     * table is not the one staged (the connection was replaced between two slices): the next merge stages again.
     */
    async finishStaged(staged: StagedMerge): Promise<boolean> {
      if (!lazy) return true;
      const held = (await db.raw(`SELECT count(*) AS n FROM ${STAGING}`)) as Array<{ n: number }>;
      if (Number(held[0]?.n ?? 0) !== staged.rows) return false;
      await db('event_index_marks').where({ name: 'customer', seq: staged.from }).update({ seq: staged.to });
      await db.raw(`DELETE FROM ${STAGING}`);
      return true;
    },
  };
}
