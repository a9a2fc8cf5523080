import type { Db, Deferred } from '../database/index.js';
import { uuidv7 } from '../kernel/ids.js';
import { eventTypes } from './ingest-lookups.js';
import { eventsRepository, type StoredEvent } from './repository.js';

/** Polar's system events that Till writes (metered billing and meter credits). */
export type SystemEventName = 'meter.credited' | 'meter.reset';

export interface SystemEvent {
  organizationId: string;
  customer: { id: string; externalId: string | null };
  name: SystemEventName;
  metadata: Record<string, unknown>;
  at: Date;
}

/**
 * Records system events (`source: system`) in the caller's transaction, listed by `GET /v1/events` and counted in
 * the event types like ingested ones. Meters never count them: the aggregates fold user events only.
 */
export async function recordSystemEvents(trx: Db, events: readonly SystemEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows: StoredEvent[] = events.map((event) => ({
    id: uuidv7(event.at.getTime()),
    organizationId: event.organizationId,
    customerId: event.customer.id,
    externalCustomerId: event.customer.externalId,
    memberId: null,
    externalMemberId: null,
    name: event.name,
    source: 'system',
    timestamp: event.at.getTime(),
    ingestedAt: event.at.getTime(),
    externalId: null,
    parentId: null,
    metadata: event.metadata,
  }));
  const repo = eventsRepository(trx);
  const writes: Deferred[] = [...repo.deferInsert(rows)];
  for (const organizationId of new Set(rows.map((row) => row.organizationId))) {
    const count = repo.deferCountTypes(
      eventTypes(
        organizationId,
        rows.filter((row) => row.organizationId === organizationId),
        events[0]!.at,
      ),
    );
    if (count) writes.push(count);
  }
  // Not finishWith: these writes are in the middle of the caller's transaction, not its last statements.
  for (const write of writes) await write;
}
