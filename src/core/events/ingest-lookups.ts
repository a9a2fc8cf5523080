import { randomUUID } from 'node:crypto';
import type { Db } from '../database/index.js';
import { together } from '../database/index.js';
import type { FieldIssue } from '../polar-api/errors.js';
import { isUuid } from '../polar-api/schemas.js';
import { eventsRepository, type EventType, type StoredEvent } from './repository.js';
import type { EventCreateInput } from './schemas.js';

/** What an ingestion looks up before it writes: customers, parents; and the event types it counts. */

export type Indexed = { index: number; input: EventCreateInput; timestamp: number };

export interface CustomerRef {
  id: string;
  externalId: string | null;
}

/** The customers a group of batches names, by id and by external id: one query each, however many batches. */
export async function resolveCustomers(trx: Db, organizationId: string, batch: readonly Indexed[]) {
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const { input } of batch) {
    if (input.customer_id) ids.add(input.customer_id);
    else if (input.external_customer_id) externalIds.add(input.external_customer_id);
  }
  const events = eventsRepository(trx);
  const [byIdRows, byExternalRows] = await together(
    events.customersByIds(organizationId, [...ids]),
    events.customersByExternalIds(organizationId, [...externalIds]),
  );
  const byId = new Map<string, CustomerRef>(byIdRows.map((row) => [row.id, row]));
  const byExternalId = new Map<string, CustomerRef>(byExternalRows.map((row) => [row.externalId!, row]));
  return { byId, byExternalId };
}

/** A batch's events naming a customer id the organization does not have (by external id, an event is kept). */
export function customerIssues(batch: readonly Indexed[], byId: ReadonlyMap<string, CustomerRef>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const { index, input } of batch)
    if (input.customer_id && !byId.has(input.customer_id))
      issues.push({
        loc: ['body', 'events', index, 'customer_id'],
        msg: 'Customer not found.',
        type: 'value_error',
        input: input.customer_id,
      });
  return issues;
}

/** Parents named by a Polar id or an external id, of events stored or earlier in the same batch. */
export async function resolveParents(
  trx: Db,
  organizationId: string,
  batch: ReadonlyArray<Indexed & { id: string }>,
  issues: FieldIssue[],
): Promise<Map<string, string>> {
  const parents = new Map<string, string>();
  const wanted = batch.flatMap(({ input }) => (input.parent_id ? [input.parent_id] : []));
  if (wanted.length === 0) return parents;
  for (const { input, id } of batch) if (input.external_id) parents.set(input.external_id, id);
  const missing = [...new Set(wanted.filter((reference) => !parents.has(reference)))];
  const found = await eventsRepository(trx).idsByReference(organizationId, missing, missing.filter(isUuid));
  for (const [reference, id] of found) parents.set(reference, id);
  for (const { index, input } of batch)
    if (input.parent_id && !parents.has(input.parent_id))
      issues.push({
        loc: ['body', 'events', index, 'parent_id'],
        msg: 'Parent event not found.',
        type: 'value_error',
        input: input.parent_id,
      });
  return parents;
}

export function eventTypes(organizationId: string, rows: readonly StoredEvent[], now: Date): EventType[] {
  const types = new Map<string, EventType>();
  for (const row of rows) {
    const type = types.get(row.name);
    if (type) {
      type.occurrences += 1;
      type.firstSeen = Math.min(type.firstSeen, row.timestamp);
      type.lastSeen = Math.max(type.lastSeen, row.timestamp);
    } else
      types.set(row.name, {
        id: randomUUID(),
        organizationId,
        name: row.name,
        label: row.name,
        source: row.source,
        occurrences: 1,
        firstSeen: row.timestamp,
        lastSeen: row.timestamp,
        createdAt: now,
        modifiedAt: null,
      });
  }
  return [...types.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
