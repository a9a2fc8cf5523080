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
     * Claims, in one statement, up to `perEndpoint` events per endpoint, the oldest first: each due event that no
     * earlier pending event of the same ordering key holds back. An event holds back the later ones of its key while
     * it is not due (retrying, or claimed by anyone: in flight here or in another daemon) or is `blocking` (its
     * failure or give-back is still to be written by this process, whatever the clock says); it stops holding back
     * once it succeeds or fails for good. Events without a key hold back nothing. `mine` are events this process
     * holds claimed (queued or in flight, or sent and not yet written): they are passed over, neither claimed nor
     * holding back, so the events after them are claimed too and queued behind them in their key's lane. `busy`
     * endpoints have enough queued here and are left out. At most `limit` events overall, oldest first, which keeps
     * each key's part a prefix of what is claimable for it. Each claim counts as an attempt, so a claim that dies with
     * its daemon is retaken after its lease (with the key's later events, in order, by whoever retakes it).
     *
     * On PostgreSQL claimers of all daemons take turns (a transaction-scoped advisory lock, CLAIM_LOCK, which the
     * caller may hold already: `locked`), so a claim never sees another's half-committed claim and no two daemons hold
     * events of one key at once; the guard on the UPDATE still re-checks every row against concurrent writers, so no
     * event is claimed twice. Row-level SKIP LOCKED is not used: skipping a locked row of a key would let the events
     * behind it go first.
     */
    async claimHeads(
      now: Date,
      leaseUntil: Date,
      options: {
        perEndpoint: number;
        limit: number;
        busy: string[];
        mine?: string[];
        blocking?: string[];
        locked?: boolean;
      },
    ): Promise<WebhookEventRecord[]> {
      if (postgres && !options.locked) await db.raw('SELECT pg_advisory_xact_lock(?)', [CLAIM_LOCK]);
      const busy = idIn(db, 'p.id', options.busy);
      const mine = idIn(db, 'x.id', options.mine ?? []);
      const blocking = idIn(db, 'y.id', options.blocking ?? []);
      // `<> ALL`, not NOT (= ANY): the negated form PostgreSQL 15 can hash a long list for instead of scanning it per row.
      const notMine = (alias: string) =>
        postgres ? `${alias}.id <> ALL(?::uuid[])` : `NOT (${alias}.id IN (SELECT value FROM json_each(?)))`;
      const notBlocking = postgres ? 'x.id <> ALL(?::uuid[])' : 'NOT (x.id IN (SELECT value FROM json_each(?)))';
      // The due test is kept off the index (`+` on SQLite, an expression on PostgreSQL): walked through the
      // (endpoint_id, status, seq) index the scan stops after `perEndpoint` events; through the (status,
      // next_attempt_at) index it would visit and check every due event of a backlog, then sort them.
      const attemptAt = postgres ? "x.next_attempt_at + interval '0 seconds'" : '+x.next_attempt_at';
      const heads = `SELECT x.id${postgres ? ', x.seq' : ''} FROM webhook_events x
             WHERE x.endpoint_id = p.id AND x.status = 'pending' AND ${notMine('x')}
               AND ${attemptAt} <= ? AND (x.claimed_until IS NULL OR x.claimed_until <= ?) AND ${notBlocking}
               AND (x.ordering_key IS NULL OR NOT EXISTS (
                 SELECT 1 FROM webhook_events y
                 WHERE y.endpoint_id = x.endpoint_id AND y.ordering_key = x.ordering_key AND y.status = 'pending'
                   AND y.seq < x.seq AND ${notMine('y')}
                   AND (y.next_attempt_at > ? OR y.claimed_until > ? OR ${blocking.sql})))
             ORDER BY x.seq LIMIT ?`;
      const from = postgres
        ? `FROM webhook_endpoints p CROSS JOIN LATERAL (${heads}) e WHERE NOT (${busy.sql})`
        : `FROM webhook_endpoints p JOIN webhook_events e ON e.id IN (${heads}) WHERE NOT (${busy.sql})`;
      const rows = await db.raw(
        `UPDATE webhook_events SET claimed_until = ?, attempts = attempts + 1, modified_at = ?
         WHERE id IN (SELECT e.id ${from} ORDER BY e.seq LIMIT ?)
         AND status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
         RETURNING *`,
        [
          leaseUntil,
          now,
          mine.binding,
          now,
          now,
          idIn(db, 'x.id', options.blocking ?? []).binding,
          mine.binding,
          now,
          now,
          blocking.binding,
          options.perEndpoint,
          busy.binding,
          options.limit,
          now,
          now,
        ],
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
