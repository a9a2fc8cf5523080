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
}
