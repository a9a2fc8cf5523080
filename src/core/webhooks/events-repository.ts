import type { Db } from '../database/index.js';
import { toBool, toDate, toDateOrNull } from '../database/index.js';
import { insertRows, type Columns } from './bulk.js';
import { outboxRepository } from './outbox-repository.js';

export type EventStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface WebhookEventRecord {
  id: string;
  organizationId: string;
  endpointId: string;
  outboxEventId: string | null;
  seq: number;
  type: string;
  coalesceKey: string | null;
  /** The customer the event is about (see ordering.ts): events with the same key are sent one after another. */
  orderingKey: string | null;
  payload: string | null;
  status: EventStatus;
  /** Every attempt ever made, across replays: the delivery log numbers attempts with it. */
  attempts: number;
  /** `attempts` when the event was last replayed; the retry budget counts attempts after it. */
  replayBase: number;
  nextAttemptAt: Date | null;
  claimedUntil: Date | null;
  lastHttpCode: number | null;
  succeeded: boolean | null;
  createdAt: Date;
  modifiedAt: Date | null;
  /** The request whose outbox event this is (X-Request-Id), for the delivery worker's log lines. */
  requestId: string | null;
}

export interface DeliveryRecord {
  id: string;
  organizationId: string;
  endpointId: string;
  webhookEventId: string;
  attempt: number;
  succeeded: boolean;
  httpCode: number | null;
  response: string | null;
  durationMs: number;
  createdAt: Date;
}

export function eventFromRow(row: Record<string, unknown>, prefix = ''): WebhookEventRecord {
  const get = (name: string) => row[`${prefix}${name}`];
  return {
    id: String(get('id')),
    organizationId: String(get('organization_id')),
    endpointId: String(get('endpoint_id')),
    outboxEventId: (get('outbox_event_id') as string | null) ?? null,
    seq: Number(get('seq')),
    type: String(get('type')),
    coalesceKey: (get('coalesce_key') as string | null) ?? null,
    orderingKey: (get('ordering_key') as string | null) ?? null,
    payload: (get('payload') as string | null) ?? null,
    status: String(get('status')) as EventStatus,
    attempts: Number(get('attempts')),
    replayBase: Number(get('replay_base') ?? 0),
    nextAttemptAt: toDateOrNull(get('next_attempt_at')),
    claimedUntil: toDateOrNull(get('claimed_until')),
    lastHttpCode:
      get('last_http_code') === null || get('last_http_code') === undefined ? null : Number(get('last_http_code')),
    succeeded: get('succeeded') === null || get('succeeded') === undefined ? null : toBool(get('succeeded')),
    createdAt: toDate(get('created_at')),
    modifiedAt: toDateOrNull(get('modified_at')),
    requestId: (get('request_id') as string | null | undefined) ?? null,
  };
}

export function deliveryFromRow(row: Record<string, unknown>): DeliveryRecord {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    endpointId: String(row.endpoint_id),
    webhookEventId: String(row.webhook_event_id),
    attempt: Number(row.attempt),
    succeeded: toBool(row.succeeded),
    httpCode: row.http_code === null || row.http_code === undefined ? null : Number(row.http_code),
    response: (row.response as string | null) ?? null,
    durationMs: Number(row.duration_ms),
    createdAt: toDate(row.created_at),
  };
}

const EVENT_COLUMNS: Columns = {
  id: 'uuid',
  organization_id: 'text',
  endpoint_id: 'uuid',
  outbox_event_id: 'uuid',
  seq: 'bigint',
  type: 'text',
  coalesce_key: 'text',
  ordering_key: 'text',
  payload: 'text',
  status: 'text',
  attempts: 'integer',
  next_attempt_at: 'timestamptz',
  claimed_until: 'timestamptz',
  last_http_code: 'integer',
  succeeded: 'boolean',
  created_at: 'timestamptz',
  modified_at: 'timestamptz',
  request_id: 'text',
};

function eventRow(event: WebhookEventRecord): Record<string, unknown> {
  return {
    id: event.id,
    organization_id: event.organizationId,
    endpoint_id: event.endpointId,
    outbox_event_id: event.outboxEventId,
    seq: event.seq,
    type: event.type,
    coalesce_key: event.coalesceKey,
    ordering_key: event.orderingKey,
    payload: event.payload,
    status: event.status,
    attempts: event.attempts,
    next_attempt_at: event.nextAttemptAt,
    claimed_until: event.claimedUntil,
    last_http_code: event.lastHttpCode,
    succeeded: event.succeeded,
    created_at: event.createdAt,
    modified_at: event.modifiedAt,
    request_id: event.requestId,
  };
}

export function eventsRepository(db: Db) {
  return {
    /** The earliest time after `after` at which a pending event falls due (a retry). */
    async nextAttemptAfter(after: Date): Promise<Date | null> {
      const row = await db('webhook_events')
        .where({ status: 'pending' })
        .where('next_attempt_at', '>', after)
        .min({ at: 'next_attempt_at' })
        .first();
      return row?.at === null || row?.at === undefined ? null : toDate(row.at);
    },

    async insertEvents(events: WebhookEventRecord[]): Promise<void> {
      await insertRows(db, 'webhook_events', EVENT_COLUMNS, events.map(eventRow));
    },

    /**
     * The endpoint's customer.state_changed event for this customer whose coalescing window is still open (not yet
     * attempted, and due after `at`), if there is one.
     */
    async openWindow(endpointId: string, key: string, at: Date): Promise<WebhookEventRecord | null> {
      const row = await db('webhook_events')
        .where({ endpoint_id: endpointId, coalesce_key: key, status: 'pending', attempts: 0 })
        .whereNull('claimed_until')
        .where('next_attempt_at', '>', at)
        .first();
      return row ? eventFromRow(row) : null;
    },

    /** Only while nobody has claimed it: a claimed event is on its way with the payload it had. */
    async replacePayload(id: string, payload: string, at: Date): Promise<boolean> {
      const changed = await db('webhook_events')
        .where({ id, status: 'pending', attempts: 0 })
        .whereNull('claimed_until')
        .update({ payload, modified_at: at });
      return Number(changed) > 0;
    },

    /** Records one attempt's outcome; applies only to the claim it belongs to. Answers whether it did. */
    async finishAttempt(
      event: WebhookEventRecord,
      outcome: {
        status: EventStatus;
        succeeded: boolean | null;
        httpCode: number | null;
        nextAttemptAt: Date | null;
        at: Date;
      },
    ): Promise<boolean> {
      const changed = await db('webhook_events')
        .where({ id: event.id, status: 'pending', attempts: event.attempts, replay_base: event.replayBase })
        .update({
          status: outcome.status,
          succeeded: outcome.succeeded,
          last_http_code: outcome.httpCode,
          next_attempt_at: outcome.nextAttemptAt,
          claimed_until: null,
          modified_at: outcome.at,
        });
      return Number(changed) > 0;
    },

    async insertDelivery(delivery: DeliveryRecord): Promise<void> {
      await db('webhook_deliveries').insert({
        id: delivery.id,
        organization_id: delivery.organizationId,
        endpoint_id: delivery.endpointId,
        webhook_event_id: delivery.webhookEventId,
        attempt: delivery.attempt,
        succeeded: delivery.succeeded,
        http_code: delivery.httpCode,
        response: delivery.response,
        duration_ms: delivery.durationMs,
        created_at: delivery.createdAt,
      });
    },

    /** The endpoint's last `count` finished events, newest first: the disabling rule looks at these. */
    async lastFinished(endpointId: string, count: number): Promise<EventStatus[]> {
      const rows = await db('webhook_events')
        .select('status')
        .where({ endpoint_id: endpointId })
        .whereIn('status', ['succeeded', 'failed'])
        .orderBy('seq', 'desc')
        .limit(count);
      return rows.map((row: { status: string }) => row.status as EventStatus);
    },

    /** A disabled endpoint's waiting events are skipped, as in Polar; a claim in flight finishes on its own. */
    async skipPending(endpointId: string, at: Date): Promise<void> {
      await db('webhook_events')
        .where({ endpoint_id: endpointId, status: 'pending' })
        .whereNull('claimed_until')
        .update({ status: 'skipped', next_attempt_at: null, modified_at: at });
    },

    /**
     * SQLite allows one daemon per file, so at start every claim in it belongs to a daemon that died: retake them at
     * once instead of waiting out their lease.
     */
    async releaseAllClaims(): Promise<number> {
      return Number(
        await db('webhook_events')
          .where('status', 'pending')
          .whereNotNull('claimed_until')
          .update({ claimed_until: null }),
      );
    },

    async findById(id: string): Promise<WebhookEventRecord | null> {
      const row = await db('webhook_events').where({ id }).first();
      return row ? eventFromRow(row) : null;
    },

    /**
     * Sends the event again with the same webhook-id and a fresh attempt budget, even if it succeeded. Attempts go on
     * counting (the log shows the replay as the next attempt); its outcome is unknown again until it is sent.
     */
    async requeue(id: string, at: Date): Promise<void> {
      await db('webhook_events')
        .where({ id })
        .update({
          status: 'pending',
          replay_base: db.raw('attempts'),
          succeeded: null,
          next_attempt_at: at,
          claimed_until: null,
          modified_at: at,
        });
    },

    /** Payloads older than the cutoff are archived; outbox rows too, except the newest (it keeps the order). */
    async prune(cutoff: Date): Promise<{ archived: number; outbox: number }> {
      const archived = Number(
        await db('webhook_events')
          .where('created_at', '<', cutoff)
          .whereNotNull('payload')
          .whereNot('status', 'pending')
          .update({ payload: null }),
      );
      return { archived, outbox: await outboxRepository(db).prune(cutoff) };
    },
  };
}
