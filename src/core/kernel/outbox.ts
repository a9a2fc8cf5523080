import type { Knex } from 'knex';
import type { Db } from './db.js';
import { uuidv7 } from './ids.js';

/**
 * The transactional outbox: every change that has a webhook event type records it here in the same transaction as
 * the change, so no event is lost and none is sent for a change that rolled back. The webhook worker delivers them.
 */
export async function recordEvent(
  trx: Db,
  event: { organizationId: string; type: string; data: unknown; at: Date },
): Promise<void> {
  await trx('outbox_events').insert({
    id: uuidv7(event.at.getTime()),
    organization_id: event.organizationId,
    type: event.type,
    payload: JSON.stringify(event.data),
    created_at: event.at,
  });
  // Wakes this process's webhook worker and event streams once the row is visible; others find it by polling.
  if (trx.isTransaction) (trx as Knex.Transaction).executionPromise.then(notifyCommitted, () => undefined);
  else notifyCommitted();
}

const committedListeners = new Set<() => void>();

function notifyCommitted(): void {
  for (const listener of committedListeners) listener();
}

/** Calls the listener after each committed event of this process (several daemons in one test process share it). */
export function onEventsCommitted(listener: () => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}
