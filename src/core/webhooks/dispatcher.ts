import type { Clock } from '../kernel/clock.js';
import { SECOND } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { dialect } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import { endpointsRepository } from './endpoints-repository.js';
import { eventsRepository, type WebhookEventRecord } from './events-repository.js';
import { orderingKeyOf } from './ordering.js';
import { outboxRepository, type OutboxRow } from './outbox-repository.js';

/** customer.state_changed events of one customer within this window are delivered once, with the latest state. */
export const STATE_CHANGED_WINDOW_MS = SECOND;
const BATCH = 200;
// Any constant works: it only has to be the same in every daemon (pg_advisory_xact_lock takes a bigint).
export const DISPATCH_LOCK = 7_363_581_104;

/**
 * The webhook body: Polar's `{type, timestamp, data}` with `data` spliced in as the producing service wrote it,
 * so what is signed and sent is byte for byte what the outbox holds.
 */
export function envelope(row: Pick<OutboxRow, 'type' | 'createdAt' | 'payload'>): string {
  return `{"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(row.createdAt.toISOString())},"data":${row.payload}}`;
}

function customerIdOf(payload: string): string | null {
  try {
    const id = (JSON.parse(payload) as { id?: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/**
 * Fans new outbox rows out into one webhook event per subscribed, enabled endpoint, and marks the rows dispatched,
 * inside the caller's transaction (a delivery round: the outbox rows are already durable, so losing a dispatch in a
 * database crash only means dispatching them again). On PostgreSQL an advisory lock makes dispatchers of all daemons take turns, so events
 * reach `webhook_events` in outbox order (the FIFO order deliveries follow); each event keeps its outbox `seq`.
 */
export function createDispatcher(deps: { clock: Clock }) {
  const { clock } = deps;

  /** One batch inside the caller's transaction; answers the outbox rows handled and the events created. */
  async function dispatchBatch(trx: Db, locked: boolean): Promise<{ rows: number; events: number }> {
    if (!locked && dialect(trx) === 'postgres') await trx.raw('SELECT pg_advisory_xact_lock(?)', [DISPATCH_LOCK]);
    const events = eventsRepository(trx);
    const outbox = outboxRepository(trx);
    const heads = await outbox.undispatched(BATCH);
    if (heads.length === 0) return { rows: 0, events: 0 };
    const now = clock.now();
    const endpoints = await endpointsRepository(trx).enabledFor([...new Set(heads.map((row) => row.organizationId))]);
    const targetsOf = new Map(
      heads.map((row) => [
        row.id,
        endpoints.filter(
          (endpoint) => endpoint.organizationId === row.organizationId && endpoint.events.includes(row.type),
        ),
      ]),
    );
    // Payloads are read only for rows some endpoint takes: most organizations have none.
    const payloads = await outbox.payloads(
      heads.filter((row) => targetsOf.get(row.id)!.length > 0).map((row) => row.id),
    );
    const created: Array<WebhookEventRecord & { windowEnd?: number }> = [];
    for (const head of heads) {
      const payload = payloads.get(head.id);
      if (payload === undefined) continue;
      const row: OutboxRow = { ...head, payload };
      const targets = targetsOf.get(head.id)!;
      const body = envelope(row);
      const key = row.type === 'customer.state_changed' ? customerIdOf(row.payload) : null;
      const orderingKey = orderingKeyOf(row.type, row.payload);
      for (const endpoint of targets) {
        if (key) {
          // The window is fixed from its first state, so a customer changing non-stop still gets one state per window.
          const inBatch = created.find(
            (event) =>
              event.endpointId === endpoint.id &&
              event.coalesceKey === key &&
              event.windowEnd! > row.createdAt.getTime(),
          );
          if (inBatch) {
            inBatch.payload = body;
            continue;
          }
          const open = await events.openWindow(endpoint.id, key, row.createdAt);
          if (open && (await events.replacePayload(open.id, body, now))) continue;
        }
        const windowEnd = key ? row.createdAt.getTime() + STATE_CHANGED_WINDOW_MS : undefined;
        created.push({
          id: uuidv7(now.getTime()),
          organizationId: row.organizationId,
          endpointId: endpoint.id,
          outboxEventId: row.id,
          seq: row.seq,
          type: row.type,
          coalesceKey: key,
          orderingKey,
          payload: body,
          status: 'pending',
          attempts: 0,
          replayBase: 0,
          nextAttemptAt: windowEnd !== undefined ? new Date(windowEnd) : now,
          claimedUntil: null,
          lastHttpCode: null,
          succeeded: null,
          createdAt: now,
          modifiedAt: null,
          requestId: row.requestId,
          windowEnd,
        });
      }
    }
    await events.insertEvents(created.map(({ windowEnd: _windowEnd, ...event }) => event));
    await outbox.markDispatched(heads);
    return { rows: heads.length, events: created.length };
  }

  /**
   * Dispatches up to `batches` batches inside `trx` (`locked`: the caller's transaction already holds DISPATCH_LOCK);
   * answers the events created and whether rows are left.
   */
  async function dispatchIn(
    trx: Db,
    options: { batches?: number; locked?: boolean } = {},
  ): Promise<{ events: number; more: boolean }> {
    let events = 0;
    for (let batch = 0; batch < (options.batches ?? 1); batch++) {
      const handled = await dispatchBatch(trx, batch > 0 || options.locked === true);
      events += handled.events;
      if (handled.rows < BATCH) return { events, more: false };
    }
    return { events, more: true };
  }

  return { dispatchIn };
}
