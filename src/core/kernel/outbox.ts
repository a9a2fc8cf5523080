import type { Knex } from 'knex';
import type { Db, Deferred } from '../database/index.js';
import { afterWriteOnlyCommit } from '../database/index.js';
import { uuidv7 } from './ids.js';
import { currentRequestId } from './request-context.js';
import { sliceTimer } from './turns.js';

export interface OutboxEvent {
  organizationId: string;
  type: string;
  data: unknown;
  at: Date;
  /**
   * Set by a writer that knows the resource contributes to the metrics what it did before this change (a renewal's
   * new period): the event writers' rollups leave it as it is.
   */
  sameContributions?: boolean;
}

// Five columns a row: 100 rows stay under SQLite's 500 compound-select terms (knex inserts many rows that way).
const ROWS_PER_INSERT = 100;

/**
 * The transactional outbox: every change that has a webhook event type records it here in the same transaction as
 * the change, so no event is lost and none is sent for a change that rolled back. The webhook worker delivers them.
 */
export async function recordEvent(trx: Db, event: OutboxEvent): Promise<void> {
  await recordEvents(trx, [event]);
}

/**
 * Several events in one statement, in the order given: that order is the rows' sequence, so it is the order in which
 * they are delivered. A transaction with many events (a checkout's fulfilment) costs one round trip for all of them.
 */
export async function recordEvents(trx: Db, events: readonly OutboxEvent[]): Promise<string[]> {
  const { ids, writes } = deferEvents(trx, events);
  for (const write of writes) await write;
  if (!trx.isTransaction) notifyCommitted();
  return ids;
}

/** An object's JSON text, made once per map: events often share one payload (order.updated and order.paid). */
function payloadText(payloads: Map<unknown, string>, data: unknown): string {
  let text = payloads.get(data);
  if (text === undefined) payloads.set(data, (text = JSON.stringify(data)));
  return text;
}

/** Payloads serialized ahead of deferEvents, by the object serialized. */
export type Payloads = ReadonlyMap<unknown, string>;

/**
 * The events' payloads serialized a slice at a time (turns.ts), for a batch of hundreds of events whose serialization
 * in one go would hold the event loop for tens of milliseconds. Events sharing one object share its text.
 */
export async function serializePayloads(events: readonly OutboxEvent[], pause = sliceTimer()): Promise<Payloads> {
  const payloads = new Map<unknown, string>();
  for (const { data } of events) {
    payloadText(payloads, data);
    const turn = pause();
    if (turn) await turn;
  }
  return payloads;
}

/**
 * recordEvents as statements not run yet, for a transaction's last writes (see finishWith), and the events' ids.
 * `serialized`: payloads the caller has serialized already (serializePayloads).
 */
export function deferEvents(
  trx: Db,
  events: readonly OutboxEvent[],
  serialized?: Payloads,
): { ids: string[]; writes: Deferred[] } {
  if (events.length === 0) return { ids: [], writes: [] };
  const payloads = new Map<unknown, string>();
  const payloadOf = (data: unknown) => serialized?.get(data) ?? payloadText(payloads, data);
  const requestId = currentRequestId();
  const rows = events.map((event) => ({
    id: uuidv7(event.at.getTime()),
    organization_id: event.organizationId,
    type: event.type,
    payload: payloadOf(event.data),
    created_at: event.at,
    // The request that caused it, so the webhook worker's log lines can name it.
    request_id: requestId,
  }));
  const writes: Deferred[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
    writes.push(trx('outbox_events').insert(rows.slice(start, start + ROWS_PER_INSERT)));
  for (const writer of eventWriters) writes.push(...writer(trx, events));
  wakeAfterCommit(trx);
  return { ids: rows.map((row) => row.id), writes };
}

/**
 * Takes back events this transaction recorded, for a change found not to apply after its event was written alongside
 * it (see `together`): the rare path pays a statement so the common one saves a trip.
 */
export async function unrecordEvents(trx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await trx('outbox_events').whereIn('id', ids).del();
}

/** Statements kept in step with the events, written after them in the same transaction. */
export type EventWriter = (trx: Db, events: readonly OutboxEvent[]) => Deferred[];
const eventWriters = new Set<EventWriter>();

/**
 * Registers writes that follow the recorded events in their transaction (the metrics rollups, which read every order,
 * subscription and checkout change from its event): createCore registers them, so the kernel knows no domain.
 */
export function addEventWriter(writer: EventWriter): void {
  eventWriters.add(writer);
}

const committedListeners = new Set<() => void>();
// Transactions whose commit already wakes the listeners: one wake-up per transaction, however many events it wrote.
const awaitingCommit = new WeakSet<object>();

/**
 * Wakes this process's webhook worker and event streams once the rows are visible; others find them by polling.
 * Outside a transaction (or in a write-only one) the writes are not run yet; recordEvents wakes after running them.
 */
function wakeAfterCommit(trx: Db): void {
  if (!trx.isTransaction) {
    afterWriteOnlyCommit(notifyCommitted);
    return;
  }
  if (awaitingCommit.has(trx)) return;
  awaitingCommit.add(trx);
  (trx as Knex.Transaction).executionPromise.then(notifyCommitted, () => undefined);
}

function notifyCommitted(): void {
  for (const listener of committedListeners) listener();
}

/** Calls the listener after each transaction of this process that committed events (several daemons in one test process share it). */
export function onEventsCommitted(listener: () => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}
