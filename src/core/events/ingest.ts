import {
  changeMark,
  dialect,
  finishWith,
  keptWhileUnchanged,
  rebuiltOn,
  retryingDeadlocks,
  together,
  transaction,
  type Db,
  type Deferred,
  type Transaction,
} from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { CrashHook } from '../kernel/crash.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { uuidv7 } from '../kernel/ids.js';
import { withRequestId } from '../kernel/request-context.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationForCreate } from '../polar-api/actor.js';
import { validationError, type FieldIssue } from '../polar-api/errors.js';
import { meterAggregatesRepository } from '../meters/aggregates-repository.js';
import { aggregateBatch, compileMeter, type BatchDeltas, type CompiledMeter } from '../meters/aggregates.js';
import { knownValues } from '../meters/known-values.js';
import { holdTotals, holdsTotals } from '../meters/pending-totals.js';
import { metersRepository } from '../meters/repository.js';
import { createCustomerIndexer } from './customer-index.js';
import {
  customerIssues,
  eventTypes,
  existing,
  lookUp,
  resolveCustomersKept,
  resolveParents,
  sameSet,
  type Indexed,
  type Lookups,
} from './ingest-lookups.js';
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

/** An organization's batches waiting, its transactions at work, and the last group's write (settled or not). */
interface Queue {
  waiting: Pending[];
  writers: number;
  lastWrite: Promise<void>;
  /** Settled once the last group taken holds the connection (or is done): on SQLite the next is taken then. */
  lastStart: Promise<void>;
}

/**
 * `POST /v1/events/ingest`: a batch, all or nothing. Everything is checked first (organizations, timestamps,
 * customers, parents); any failure is one 422 listing every failing index and nothing of that batch is written.
 *
 * Up to two transactions per organization at a time: batches that arrive while they are being written wait, and are
 * then written together by the next transaction (up to MAX_GROUP_EVENTS), each with its own outcome. On SQLite a
 * group is planned before its transaction, while the group before it writes (see ingestGroup).
 * It inserts their events (multi-row INSERTs; a repeated `external_id` is skipped and reported as a duplicate, the
 * first one sent winning, as if the batches had run one after another) and folds them into the running aggregates
 * of the organization's meters, grouped per (meter, customer) and per (meter, hour): a handful of statements and one
 * COMMIT however many batches, and with many clients the upserts of a pair that several batches touch are one.
 */
export function createIngestion(deps: { db: Db; clock: Clock; background: Background; crashAt?: CrashHook }) {
  const { db, clock } = deps;
  const customerIndex = createCustomerIndexer(deps);
  const queues = new Map<string, Queue>();
  // Two transactions of an organization at a time. On PostgreSQL the second runs while the first commits, so the
  // server and the daemon both stay busy. On SQLite, whose one connection runs one at a time, a group is looked up and
  // built before its transaction (pipelined): the event loop builds one group while SQLite's thread writes the other.
  const writers = 2;
  const pipelined = dialect(db) === 'sqlite';

  function submit(organizationId: string, batch: Indexed[], now: Date): Promise<EventsIngestResponse> {
    return new Promise((resolve, reject) => {
      let queue = queues.get(organizationId);
      if (!queue)
        queues.set(
          organizationId,
          (queue = { waiting: [], writers: 0, lastWrite: Promise.resolve(), lastStart: Promise.resolve() }),
        );
      const alone = batch.some(({ input }) => !!input.parent_id);
      queue.waiting.push({ batch, now, alone, resolve, reject });
      if (queue.writers < writers) {
        queue.writers += 1;
        // Outside this request: the transaction writes other requests' batches too.
        void withRequestId(null, () => drain(organizationId, queue!));
      }
    });
  }

  async function drain(organizationId: string, queue: Queue): Promise<void> {
    while (queue.waiting.length > 0) {
      // On SQLite groups write in the order they were taken (the first batch sent wins an external id), each planned
      // while the one before it writes. On PostgreSQL two transactions run side by side (see ingestGroup).
      const previous = queue.lastWrite;
      const previousStart = queue.lastStart;
      let done!: () => void;
      let started!: () => void;
      queue.lastWrite = new Promise((resolve) => (done = resolve));
      queue.lastStart = new Promise((resolve) => (started = resolve));
      // On SQLite the next group is taken once the one before it holds the connection. Planned any earlier, its
      // synchronous work would keep the event loop from starting that group when the connection frees, so the
      // connection and the event loop would take turns instead of working side by side; and the batches that arrive
      // meanwhile join it.
      if (pipelined) await previousStart;
      if (queue.waiting.length === 0) {
        started();
        void previous.then(done);
        break;
      }
      await settle(organizationId, takeGroup(queue.waiting), previous, started).finally(() => {
        started();
        done();
      });
    }
    queue.writers -= 1;
    if (queue.writers === 0) queues.delete(organizationId);
  }

  async function settle(
    organizationId: string,
    group: Pending[],
    previous: Promise<void>,
    started: () => void = () => undefined,
  ): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await ingestGroup(organizationId, group, previous, started);
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // The write itself failed: each batch again on its own, so that a failure is its own batch's only.
      for (const pending of group) await settle(organizationId, [pending], Promise.resolve());
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

  async function ingestGroup(
    organizationId: string,
    group: readonly Pending[],
    previous: Promise<void>,
    started: () => void,
  ): Promise<Outcome[]> {
    const all = group.length === 1 ? group[0]!.batch : group.flatMap((pending) => pending.batch);
    const externalIds = [...new Set(all.flatMap(({ input }) => (input.external_id ? [input.external_id] : [])))];
    if (pipelined && !group[0]!.alone) {
      // Planned before the transaction from what is kept in memory (the meters, the customers named before), while the
      // one connection writes the group before this one; written as planned if nothing it rests on changed meanwhile
      // (a customer, a meter, an external id stored by that group), else planned again inside.
      const [meters, kept] = await together(
        keptWhileUnchanged(db, 'meters', organizationId, async () =>
          (await metersRepository(db).activeOf(organizationId)).map(compileMeter),
        ),
        resolveCustomersKept(db, organizationId, all),
      );
      const early: Lookups = {
        meters: meters.value,
        customers: kept.customers,
        existing: await existing(db, organizationId, externalIds),
      };
      const built = statements(db, organizationId, group, await plan(db, organizationId, group, early), true);
      await previous;
      return transaction(db, async (trx) => {
        started();
        const existingNow = await existing(trx, organizationId, externalIds);
        if (
          changeMark(trx, 'customers', organizationId) === kept.mark &&
          changeMark(trx, 'meters', organizationId) === meters.mark &&
          sameSet(existingNow, early.existing) &&
          knownValues(trx)?.generation === built.knownGeneration
        )
          return write(trx, { ...built, writes: rebuiltOn(trx, built.writes) });
        const current = await plan(trx, organizationId, group, await lookUp(trx, organizationId, all, externalIds));
        return write(trx, statements(trx, organizationId, group, current, true));
      });
    }
    if (pipelined) await previous;
    // Two batches inserting the same external ids in different orders wait for each other's, and PostgreSQL aborts
    // one as a deadlock; run again, it finds the other's ids stored.
    return retryingDeadlocks(() =>
      transaction(db, async (trx) => {
        started();
        await metersRepository(trx).lockOrganization(organizationId, 'shared');
        const lookups = await lookUp(trx, organizationId, all, externalIds);
        // On PostgreSQL another transaction may be inserting the same external ids right now (it read before we
        // could see them): the INSERT says which rows are ours, and only those are counted and aggregated.
        const insertFirst = dialect(trx) === 'postgres' && externalIds.length > 0;
        const planned = await plan(trx, organizationId, group, lookups);
        if (insertFirst) {
          const inserted = await eventsRepository(trx).insertReturning(planned.accepted.flatMap((batch) => batch.rows));
          for (const batch of planned.accepted) batch.rows = batch.rows.filter((row) => inserted.has(row.id));
        }
        return write(trx, statements(trx, organizationId, group, planned, !insertFirst));
      }),
    );
  }

  /**
   * Which batches are refused, and the rows of the others, from what was looked up (a refused batch's external ids
   * are free again for the batches after it). Reads only for a batch naming parents.
   */
  async function plan(on: Db, organizationId: string, group: readonly Pending[], lookups: Lookups): Promise<Planned> {
    const { customers } = lookups;
    const seen = new Set(lookups.existing);
    const refusals: Array<DomainError | undefined> = [];
    const accepted: Accepted[] = [];
    for (const [position, pending] of group.entries()) {
      const issues = customerIssues(pending.batch, customers.byId);
      const claimed: string[] = [];
      const fresh: Indexed[] = [];
      const ids: string[] = [];
      for (const item of pending.batch) {
        const externalId = item.input.external_id;
        if (externalId) {
          if (seen.has(externalId)) continue;
          seen.add(externalId);
          claimed.push(externalId);
        }
        fresh.push(item);
        ids.push(uuidv7(pending.now.getTime()));
      }
      // Only a batch naming parents (alone) has any to look up.
      const parents = pending.alone
        ? await resolveParents(
            on,
            organizationId,
            fresh.map((item, i) => ({ ...item, id: ids[i]! })),
            issues,
          )
        : new Map<string, string>();
      if (issues.length > 0) {
        for (const externalId of claimed) seen.delete(externalId);
        refusals[position] = validationError(issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2])));
        continue;
      }
      const ingestedAt = pending.now.getTime();
      const rows = fresh.map(({ input, timestamp }, i): StoredEvent => {
        const id = ids[i]!;
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
      accepted.push({ position, rows, size: pending.batch.length });
    }
    return { meters: lookups.meters, batches: group.length, refusals, accepted };
  }

  /**
   * The statements that write a group's accepted rows (the events unless already inserted, their aggregates, their
   * types), built on `on`: compiled, not run through it.
   */
  function statements(
    on: Db,
    organizationId: string,
    group: readonly Pending[],
    planned: Planned,
    insertEvents: boolean,
  ): Built {
    const { accepted } = planned;
    const rows = accepted.length === 1 ? accepted[0]!.rows : accepted.flatMap((batch) => batch.rows);
    const writes: Deferred[] = insertEvents ? [...eventsRepository(on).deferInsert(rows)] : [];
    const now = new Date(Math.max(...group.map((pending) => pending.now.getTime())));
    const held = holdsTotals(on);
    // SQLite's one writer takes rows in any order; PostgreSQL's concurrent writers lock them in one.
    const deltas = aggregateBatch(planned.meters, rows, { sorted: dialect(on) === 'postgres' });
    const known = knownValues(on);
    const unknown = known ? known.unknown(deltas) : deltas;
    writes.push(...meterAggregatesRepository(on).deferAdd(held ? { ...unknown, totals: [] } : unknown, now));
    const typeCount = eventsRepository(on).deferCountTypes(eventTypes(organizationId, rows, now));
    if (typeCount) writes.push(typeCount);
    // Only the counts are kept: the rows, built moments ago, die young. Held until the group commits, behind the
    // group before it, they were copied by the scavenger and promoted (bench/events/README.md).
    const counts = new Map(
      accepted.map((batch) => [
        batch.position,
        { inserted: batch.rows.length, duplicates: batch.size - batch.rows.length },
      ]),
    );
    const { batches, refusals } = planned;
    return {
      batches,
      refusals,
      counts,
      writes,
      heldTotals: held ? deltas.totals : [],
      now,
      learnt: known ? { uniqueValues: unknown.uniqueValues, bucketValues: unknown.bucketValues } : null,
      knownGeneration: known?.generation,
    };
  }

  /** Sends the group's statements with the COMMIT; each batch's outcome. */
  async function write(trx: Transaction, built: Built): Promise<Outcome[]> {
    const committed = await finishWith(trx, ...built.writes);
    // Committed (on SQLite finishWith sends the COMMIT; when it cannot, the statements ran and only a COMMIT that
    // fails on its own, a full disk, would leave these counted), and the connection still ours.
    if (holdsTotals(trx)) holdTotals(trx, built.heldTotals, built.now.getTime(), deps);
    // Only what is surely stored: a COMMIT still to come may fail.
    if (committed && built.learnt) knownValues(trx)?.learn(built.learnt);
    return Array.from(
      { length: built.batches },
      (_, position): Outcome => built.refusals[position] ?? built.counts.get(position)!,
    );
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

interface Accepted {
  position: number;
  rows: StoredEvent[];
  size: number;
}

/** A group planned: the refused batches' errors by position, the others' rows, the meters they count in. */
interface Planned {
  meters: CompiledMeter[];
  /** How many batches the group has: each is refused or accepted. */
  batches: number;
  refusals: Array<DomainError | undefined>;
  accepted: Accepted[];
}

/** A group planned, reduced to its outcomes, with the statements that write it. */
interface Built extends Omit<Planned, 'accepted' | 'meters'> {
  /** Each accepted batch's outcome, by position. */
  counts: ReadonlyMap<number, EventsIngestResponse>;
  writes: Deferred[];
  /** Its totals' deltas where they are held in memory (holdsTotals), added once it commits. */
  heldTotals: BatchDeltas['totals'];
  /** The latest of its batches' times: the aggregates' and event types' `at`. */
  now: Date;
  /** On SQLite, the `unique` meters' values it writes, known to be stored once it commits (meters/known-values.ts). */
  learnt: Pick<BatchDeltas, 'uniqueValues' | 'bucketValues'> | null;
  /** What was known when it was built: written as built only if nothing was forgotten since. */
  knownGeneration: number | undefined;
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
