import { randomUUID } from 'node:crypto';
import { finishWith, together, transaction, type Db, type Deferred } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { uuidv7 } from '../kernel/ids.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationForCreate } from '../polar-api/actor.js';
import { validationError, type FieldIssue } from '../polar-api/errors.js';
import { isUuid } from '../polar-api/schemas.js';
import { meterAggregatesRepository } from '../meters/aggregates-repository.js';
import { aggregateBatch, compileMeter } from '../meters/aggregates.js';
import { metersRepository } from '../meters/repository.js';
import { eventsRepository, type EventType, type StoredEvent } from './repository.js';
import type { EventCreateInput, EventsIngestResponse } from './schemas.js';

/** How far ahead of the server's clock an event may be stamped (clients' clocks drift; beyond that it is a mistake). */
export const MAX_FUTURE_MS = 5 * 60_000;

type Indexed = { index: number; input: EventCreateInput; timestamp: number };

/**
 * `POST /v1/events/ingest`: a batch, all or nothing. Everything is checked first (organizations, timestamps,
 * customers, parents); any failure is one 422 listing every failing index and nothing is written. Then, per
 * organization, one transaction inserts the events (multi-row INSERTs; a repeated `external_id` is skipped and
 * reported as a duplicate) and folds them into the running aggregates of the organization's meters, grouped per
 * (meter, customer) and per (meter, hour), so a batch costs a handful of statements whatever its size.
 */
export function createIngestion(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  async function ingestOrganization(
    organizationId: string,
    batch: Indexed[],
    now: Date,
  ): Promise<EventsIngestResponse> {
    return transaction(db, async (trx) => {
      const events = eventsRepository(trx);
      const meters = metersRepository(trx);
      await meters.lockOrganization(organizationId, 'shared');
      const [active, customers] = await together(
        meters.activeOf(organizationId),
        resolveCustomers(trx, organizationId, batch),
      );
      const issues: FieldIssue[] = [...customers.issues];

      // Duplicates: within the batch (the first one wins) and against what is stored.
      const externalIds = [...new Set(batch.flatMap(({ input }) => (input.external_id ? [input.external_id] : [])))];
      const stored =
        externalIds.length > 0 ? await events.existingExternalIds(organizationId, externalIds) : new Set<string>();
      const seen = new Set<string>(stored);
      const fresh: Array<Indexed & { id: string }> = [];
      for (const item of batch) {
        const externalId = item.input.external_id;
        if (externalId) {
          if (seen.has(externalId)) continue;
          seen.add(externalId);
        }
        fresh.push({ ...item, id: uuidv7(now.getTime()) });
      }

      const parents = await resolveParents(trx, organizationId, fresh, issues);
      if (issues.length > 0) throw validationError(issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2])));

      const ingestedAt = now.getTime();
      let rows: StoredEvent[] = fresh.map(({ input, timestamp, id }) => {
        const customer = input.customer_id
          ? customers.byId.get(input.customer_id)!
          : customers.byExternalId.get(input.external_customer_id!);
        return {
          id,
          organizationId,
          customerId: customer?.id ?? null,
          externalCustomerId: customer ? customer.externalId : input.external_customer_id!,
          memberId: input.member_id ?? null,
          externalMemberId: input.external_member_id ?? null,
          name: input.name,
          source: 'user',
          timestamp,
          ingestedAt,
          externalId: input.external_id ?? null,
          parentId: input.parent_id ? parents.get(input.parent_id)! : null,
          metadata: input.metadata ?? {},
        };
      });

      const writes: Deferred[] = [];
      // On PostgreSQL another transaction may be inserting the same external ids right now (it read before we
      // could see them): the INSERT says which rows are ours, and only those are counted.
      if (events.dialect() === 'postgres' && externalIds.length > 0) {
        const inserted = await events.insertReturning(rows);
        rows = rows.filter((row) => inserted.has(row.id));
      } else writes.push(...events.deferInsert(rows));

      const compiled = active.map(compileMeter);
      const deltas = aggregateBatch(compiled, rows);
      writes.push(...meterAggregatesRepository(trx).deferAdd(deltas, now));
      const typeCount = events.deferCountTypes(eventTypes(organizationId, rows, now));
      if (typeCount) writes.push(typeCount);
      await finishWith(trx, ...writes);
      return { inserted: rows.length, duplicates: batch.length - rows.length };
    });
  }

  return {
    async ingest(actor: MerchantActor, inputs: EventCreateInput[]): Promise<EventsIngestResponse> {
      const now = clock.now();
      const issues: FieldIssue[] = [];
      const byOrganization = new Map<string, Indexed[]>();
      inputs.forEach((input, index) => {
        let organizationId: string;
        try {
          organizationId = organizationForCreate(actor, input.organization_id);
        } catch (error) {
          if (!(error instanceof DomainError) || error.status !== 422) throw error;
          issues.push({ loc: ['body', 'events', index, 'organization_id'], msg: error.message, type: 'value_error' });
          return;
        }
        const timestamp = input.timestamp ? Date.parse(input.timestamp) : now.getTime();
        if (timestamp > now.getTime() + MAX_FUTURE_MS) {
          issues.push({
            loc: ['body', 'events', index, 'timestamp'],
            msg: 'Timestamp must not be in the future.',
            type: 'value_error',
            input: input.timestamp,
          });
          return;
        }
        const batch = byOrganization.get(organizationId) ?? [];
        batch.push({ index, input, timestamp });
        byOrganization.set(organizationId, batch);
      });
      if (issues.length > 0) throw validationError(issues);
      const total: EventsIngestResponse = { inserted: 0, duplicates: 0 };
      // Several organizations in one call (a member's session) are rare: each is its own transaction.
      for (const [organizationId, batch] of byOrganization) {
        const result = await ingestOrganization(organizationId, batch, now);
        total.inserted += result.inserted;
        total.duplicates += result.duplicates;
      }
      return total;
    },
  };
}

interface CustomerRef {
  id: string;
  externalId: string | null;
}

async function resolveCustomers(trx: Db, organizationId: string, batch: readonly Indexed[]) {
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
  const issues: FieldIssue[] = [];
  for (const { index, input } of batch)
    if (input.customer_id && !byId.has(input.customer_id))
      issues.push({
        loc: ['body', 'events', index, 'customer_id'],
        msg: 'Customer not found.',
        type: 'value_error',
        input: input.customer_id,
      });
  return { byId, byExternalId, issues };
}

/** Parents named by a Polar id or an external id, of events stored or earlier in the same batch. */
async function resolveParents(
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
