import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';
import { idIn, insertRows, type Columns } from './bulk.js';
import { eventFromRow, type WebhookEventRecord } from './events-repository.js';

// Any constant works: it only has to be the same in every daemon (pg_advisory_xact_lock takes a bigint).
export const CLAIM_LOCK = 7_363_581_105;

const DELIVERY_COLUMNS: Columns = {
  id: 'uuid',
  organization_id: 'text',
  endpoint_id: 'uuid',
  webhook_event_id: 'uuid',
  attempt: 'integer',
  succeeded: 'boolean',
  http_code: 'integer',
  response: 'text',
  duration_ms: 'integer',
  created_at: 'timestamptz',
};

/** One sent attempt that succeeded, waiting to be written with others of its round. */
export interface SuccessRecord {
  event: WebhookEventRecord;
  httpCode: number;
  response: string;
  durationMs: number;
  sentAt: Date;
  deliveryId: string;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * The delivery worker's claims and its batched bookkeeping. Every write is guarded by the attempt count the claim
 * set (with `status = 'pending'`), so an outcome or a release applies only to the claim it belongs to: a redelivery,
 * a requeue or another daemon's claim after a lapsed lease in between wins.
 */
export function claimsRepository(db: Db) {
  const postgres = dialect(db) === 'postgres';

  return {
    /**
     * Claims, in one statement, a run of up to `runLength` events per endpoint: the endpoint's oldest pending events
     * (found through the (endpoint_id, status, seq) index, so the cost follows the endpoints and the run length, not
     * the backlog) up to the first one that is not due or is claimed. An endpoint whose head is retrying or in flight
     * gives nothing (FIFO). `busy` endpoints have outcomes in this process not yet written and are left out whatever
     * the clock says. `mine` are events this process holds claimed (queued or in flight, or sent and not yet written):
     * they are passed over, neither claimed nor blocking, so an endpoint's next run is claimed while the run before it
     * is still being sent, and is sent after it. At most `limit` events overall, the oldest first, which keeps every
     * endpoint's part a prefix of its run. Each claim counts as an attempt, so a claim that dies with its daemon is
     * retaken after its lease.
     *
     * On PostgreSQL claimers of all daemons take turns (a transaction-scoped advisory lock, CLAIM_LOCK, which the caller
     * may hold already: `locked`), so a claim never sees
     * another's half-committed run; the guard on the UPDATE still re-checks every row against concurrent writers,
     * so no event is claimed twice. Row-level SKIP LOCKED is not used: skipping a locked row inside a run would let
     * the events behind it go first.
     */
    async claimRuns(
      now: Date,
      leaseUntil: Date,
      options: { runLength: number; limit: number; busy: string[]; mine?: string[]; locked?: boolean },
    ): Promise<WebhookEventRecord[]> {
      if (postgres && !options.locked) await db.raw('SELECT pg_advisory_xact_lock(?)', [CLAIM_LOCK]);
      const busy = idIn(db, 'p.id', options.busy);
      const mine = idIn(db, 'x.id', options.mine ?? []);
      // `<> ALL`, not NOT (= ANY): the negated form PostgreSQL 15 can hash a long list for instead of scanning it per row.
      const notMine = postgres ? 'x.id <> ALL(?::uuid[])' : `NOT (${mine.sql})`;
      const firsts = postgres
        ? `FROM webhook_endpoints p CROSS JOIN LATERAL (SELECT x.id, x.endpoint_id, x.seq, x.next_attempt_at, x.claimed_until FROM webhook_events x
             WHERE x.endpoint_id = p.id AND x.status = 'pending' AND ${notMine} ORDER BY x.seq LIMIT ?) e WHERE NOT (${busy.sql})`
        : `FROM webhook_endpoints p JOIN webhook_events e ON e.id IN (SELECT x.id FROM webhook_events x
             WHERE x.endpoint_id = p.id AND x.status = 'pending' AND ${notMine} ORDER BY x.seq LIMIT ?) WHERE NOT (${busy.sql})`;
      const rows = await db.raw(
        `UPDATE webhook_events SET claimed_until = ?, attempts = attempts + 1, modified_at = ?
         WHERE id IN (
           SELECT r.id FROM (
             SELECT c.id, c.seq, c.due, MIN(CASE WHEN c.due = 1 THEN NULL ELSE c.seq END) OVER (PARTITION BY c.endpoint_id) AS blocker
             FROM (
               SELECT e.id, e.endpoint_id, e.seq,
                 CASE WHEN e.next_attempt_at <= ? AND (e.claimed_until IS NULL OR e.claimed_until <= ?) THEN 1 ELSE 0 END AS due
               ${firsts}
             ) c
           ) r
           WHERE r.due = 1 AND (r.blocker IS NULL OR r.seq < r.blocker)
           ORDER BY r.seq LIMIT ?
         )
         AND status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
         RETURNING *`,
        [leaseUntil, now, now, now, mine.binding, options.runLength, busy.binding, options.limit, now, now],
      );
      const list = (postgres ? (rows as { rows: unknown[] }).rows : rows) as Array<Record<string, unknown>>;
      return list.map((row) => eventFromRow(row)).sort((a, b) => a.seq - b.seq);
    },

    /** Gives claimed events back unsent (their attempt not counted), so they wait behind the event before them. */
    async release(events: WebhookEventRecord[], at: Date): Promise<void> {
      // A claim is its (attempts, replay_base) pair: a replay since the claim moved replay_base, and the event is no
      // longer this claim's to give back.
      for (const group of groupBy(events, (event) => `${event.attempts}:${event.replayBase}`).values()) {
        const ids = idIn(
          db,
          'id',
          group.map((event) => event.id),
        );
        const { attempts, replayBase } = group[0]!;
        await db.raw(
          `UPDATE webhook_events SET claimed_until = NULL, attempts = ?, modified_at = ? WHERE ${ids.sql} AND status = 'pending' AND attempts = ? AND replay_base = ?`,
          [attempts - 1, at, ids.binding, attempts, replayBase],
        );
      }
    },

    /**
     * Writes a round's successful attempts: their log rows in multi-row inserts, then the events in one UPDATE per
     * (attempt count, status code), usually one. The log rows go first so that on PostgreSQL this transaction takes
     * its key-share lock on the endpoint before any event row lock, the order an endpoint DELETE's cascade takes too.
     */
    async recordSuccesses(successes: SuccessRecord[], at: Date): Promise<void> {
      await insertRows(
        db,
        'webhook_deliveries',
        DELIVERY_COLUMNS,
        successes.map((success) => ({
          id: success.deliveryId,
          organization_id: success.event.organizationId,
          endpoint_id: success.event.endpointId,
          webhook_event_id: success.event.id,
          attempt: success.event.attempts,
          succeeded: true,
          http_code: success.httpCode,
          response: success.response,
          duration_ms: success.durationMs,
          created_at: success.sentAt,
        })),
      );
      for (const group of groupBy(
        successes,
        (success) => `${success.event.attempts}:${success.event.replayBase}:${success.httpCode}`,
      ).values()) {
        const ids = idIn(
          db,
          'id',
          group.map((success) => success.event.id),
        );
        await db.raw(
          `UPDATE webhook_events SET status = 'succeeded', succeeded = ?, last_http_code = ?, next_attempt_at = NULL, claimed_until = NULL, modified_at = ?
           WHERE ${ids.sql} AND status = 'pending' AND attempts = ? AND replay_base = ?`,
          [true, group[0]!.httpCode, at, ids.binding, group[0]!.event.attempts, group[0]!.event.replayBase],
        );
      }
    },
  };
}
