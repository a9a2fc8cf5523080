import type { Knex } from 'knex';
import { dialect, type Db } from '../database/index.js';

/**
 * How events are found by customer. PostgreSQL: the `events (customer_id, timestamp)` index. SQLite: the
 * `event_customer_index` table, filled in bulk (`merge`) up to the mark in `event_index_marks`, plus the events
 * after the mark, read by seq (migrations/20261228000000_event_customer_index.ts says why; it is keyed by customer and
 * seq since 20261231000100_event_customer_index_by_seq.ts).
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
        who
          .whereIn(
            'seq',
            db('event_customer_index')
              .whereIn('customer_id', [...ids])
              .select('seq'),
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
     * SQLite: the events after the mark, up to `limit` of them, into the index in one sorted INSERT, and the mark
     * moved past them. Answers how many events it covered. Events are never changed after they are written, so an
     * entry never goes stale.
     */
    async merge(limit: number): Promise<number> {
      if (!lazy) return 0;
      const mark = (await db('event_index_marks').where('name', 'customer').first('seq')) as { seq: number | string };
      const from = Number(mark.seq);
      const last = (await db('events').max({ seq: 'seq' }).first()) as { seq: number | string | null } | undefined;
      const to = Math.min(Number(last?.seq ?? 0), from + limit);
      if (to <= from) return 0;
      await db.raw(
        'INSERT INTO event_customer_index (customer_id, seq) SELECT customer_id, seq FROM events WHERE seq > ? AND seq <= ? AND customer_id IS NOT NULL ORDER BY 1, 2',
        [from, to],
      );
      await db('event_index_marks').where('name', 'customer').update({ seq: to });
      return to - from;
    },
  };
}
