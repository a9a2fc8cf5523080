import { dialect, finishWith, together, transaction, type Db, type Deferred } from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { uuidv7 } from '../kernel/ids.js';
import { withRequestId } from '../kernel/request-context.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationForCreate } from '../polar-api/actor.js';
import { validationError, type FieldIssue } from '../polar-api/errors.js';
import { meterAggregatesRepository } from '../meters/aggregates-repository.js';
import { aggregateBatch, compileMeter } from '../meters/aggregates.js';
import { holdTotals, holdsTotals } from '../meters/pending-totals.js';
import { metersRepository } from '../meters/repository.js';
import { createCustomerIndexer } from './customer-index.js';
import { customerIssues, eventTypes, resolveCustomers, resolveParents, type Indexed } from './ingest-lookups.js';
import { eventsRepository, type StoredEvent } from './repository.js';
import type { EventCreateInput, EventsIngestResponse } from './schemas.js';

/** How far ahead of the server's clock an event may be stamped (clients' clocks drift; beyond that it is a mistake). */
export const MAX_FUTURE_MS = 5 * 60_000;

/**
 * Events per transaction when waiting batches are written together: enough to fold a few batches into one set of
 * aggregate upserts and one COMMIT; beyond about four batches of 1,000, building the statements' text costs more than
 * SQLite saves (bench/events/README.md), and a batch waits longer.
 */
const MAX_GROUP_EVENTS = 4_000;

/** One organization's part of one request, waiting for its transaction. */
interface Pending {
  batch: Indexed[];
  now: Date;
  /** It names parents, which may be events of a batch written just before it: it goes in a transaction of its own. */
  alone: boolean;
  resolve(result: EventsIngestResponse): void;
  reject(error: unknown): void;
}

type Outcome = EventsIngestResponse | DomainError;

/**
 * `POST /v1/events/ingest`: a batch, all or nothing. Everything is checked first (organizations, timestamps,
 * customers, parents); any failure is one 422 listing every failing index and nothing of that batch is written.
 *
 * One transaction per organization at a time (two on PostgreSQL): batches that arrive while it is being written
 * wait, and are then written together, in arrival order, by the next transaction (up to MAX_GROUP_EVENTS), each with its own outcome.
 * It inserts their events (multi-row INSERTs; a repeated `external_id` is skipped and reported as a duplicate, the
 * first one sent winning, as if the batches had run one after another) and folds them into the running aggregates
 * of the organization's meters, grouped per (meter, customer) and per (meter, hour): a handful of statements and one
 * COMMIT however many batches, and with many clients the upserts of a pair that several batches touch are one.
 */
export function createIngestion(deps: { db: Db; clock: Clock; background: Background }) {
  const { db, clock } = deps;
  const customerIndex = createCustomerIndexer(deps);
  const queues = new Map<string, { waiting: Pending[]; writers: number }>();
  // On PostgreSQL a second transaction runs while the first commits, so the server and the daemon both stay busy;
  // SQLite's one connection runs one at a time anyway.
  const writers = dialect(db) === 'postgres' ? 2 : 1;

  function submit(organizationId: string, batch: Indexed[], now: Date): Promise<EventsIngestResponse> {
    return new Promise((resolve, reject) => {
      let queue = queues.get(organizationId);
      if (!queue) queues.set(organizationId, (queue = { waiting: [], writers: 0 }));
      const alone = batch.some(({ input }) => !!input.parent_id);
      queue.waiting.push({ batch, now, alone, resolve, reject });
      if (queue.writers < writers) {
        queue.writers += 1;
        // Outside this request: the transaction writes other requests' batches too.
        void withRequestId(null, () => drain(organizationId, queue!));
      }
    });
  }

  async function drain(organizationId: string, queue: { waiting: Pending[]; writers: number }): Promise<void> {
    while (queue.waiting.length > 0) await settle(organizationId, takeGroup(queue.waiting));
    queue.writers -= 1;
    if (queue.writers === 0) queues.delete(organizationId);
  }

  async function settle(organizationId: string, group: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await ingestGroup(organizationId, group);
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // The write itself failed: each batch again on its own, so that a failure is its own batch's only.
      for (const pending of group) await settle(organizationId, [pending]);
      return;
    }
    group.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof DomainError) pending.reject(outcome);
      else {
        customerIndex.wrote(outcome.inserted);
        pending.resolve(outcome);
      }
    });
  }

  async function ingestGroup(organizationId: string, group: readonly Pending[]): Promise<Outcome[]> {
    return transaction(db, async (trx) => {
      const events = eventsRepository(trx);
      const meters = metersRepository(trx);
      await meters.lockOrganization(organizationId, 'shared');
      const all = group.length === 1 ? group[0]!.batch : group.flatMap((pending) => pending.batch);
      const [active, customers] = await together(
        meters.activeOf(organizationId),
        resolveCustomers(trx, organizationId, all),
      );

      // Duplicates: within the group (the first one sent wins) and against what is stored.
      const externalIds = [...new Set(all.flatMap(({ input }) => (input.external_id ? [input.external_id] : [])))];
      const seen =
        externalIds.length > 0 ? await events.existingExternalIds(organizationId, externalIds) : new Set<string>();
      const outcomes: Outcome[] = [];
      const accepted: Array<{ position: number; rows: StoredEvent[]; size: number }> = [];
      for (const [position, pending] of group.entries()) {
        const issues = customerIssues(pending.batch, customers.byId);
        const claimed: string[] = [];
        const fresh: Array<Indexed & { id: string }> = [];
        for (const item of pending.batch) {
          const externalId = item.input.external_id;
          if (externalId) {
            if (seen.has(externalId)) continue;
            seen.add(externalId);
            claimed.push(externalId);
          }
          fresh.push({ ...item, id: uuidv7(pending.now.getTime()) });
        }
        const parents = await resolveParents(trx, organizationId, fresh, issues);
        if (issues.length > 0) {
          // Refused whole: its external ids are free again for the batches after it.
          for (const externalId of claimed) seen.delete(externalId);
          outcomes.push(validationError(issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2]))));
          continue;
        }
        const ingestedAt = pending.now.getTime();
        const rows = fresh.map(({ input, timestamp, id }): StoredEvent => {
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
        outcomes.push({ inserted: 0, duplicates: 0 });
        accepted.push({ position, rows, size: pending.batch.length });
      }

      const writes: Deferred[] = [];
      // On PostgreSQL another transaction may be inserting the same external ids right now (it read before we
      // could see them): the INSERT says which rows are ours, and only those are counted.
      if (dialect(trx) === 'postgres' && externalIds.length > 0) {
        const inserted = await events.insertReturning(accepted.flatMap((batch) => batch.rows));
        for (const batch of accepted) batch.rows = batch.rows.filter((row) => inserted.has(row.id));
      } else writes.push(...events.deferInsert(accepted.flatMap((batch) => batch.rows)));

      const rows = accepted.length === 1 ? accepted[0]!.rows : accepted.flatMap((batch) => batch.rows);
      const now = new Date(Math.max(...group.map((pending) => pending.now.getTime())));
      const held = holdsTotals(trx);
      const deltas = aggregateBatch(active.map(compileMeter), rows, { sortTotals: !held });
      writes.push(...meterAggregatesRepository(trx).deferAdd(held ? { ...deltas, totals: [] } : deltas, now));
      const typeCount = events.deferCountTypes(eventTypes(organizationId, rows, now));
      if (typeCount) writes.push(typeCount);
      await finishWith(trx, ...writes);
      // Committed (on SQLite finishWith sends the COMMIT; when it cannot, the statements ran and only a COMMIT that
      // fails on its own, a full disk, would leave these counted), and the connection still ours.
      if (held) holdTotals(trx, deltas.totals, now.getTime(), deps);
      for (const batch of accepted)
        outcomes[batch.position] = { inserted: batch.rows.length, duplicates: batch.size - batch.rows.length };
      return outcomes;
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
        const result = await submit(organizationId, batch, now);
        total.inserted += result.inserted;
        total.duplicates += result.duplicates;
      }
      return total;
    },
  };
}

/** The first waiting batches, in arrival order, up to MAX_GROUP_EVENTS events; a batch naming parents alone. */
function takeGroup(queue: Pending[]): Pending[] {
  const first = queue.shift()!;
  const group = [first];
  if (first.alone) return group;
  let size = first.batch.length;
  while (queue.length > 0 && !queue[0]!.alone && size + queue[0]!.batch.length <= MAX_GROUP_EVENTS) {
    size += queue[0]!.batch.length;
    group.push(queue.shift()!);
  }
  return group;
}
