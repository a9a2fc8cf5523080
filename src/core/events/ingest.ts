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
  type Transaction,
} from '../database/index.js';
import type { Background } from '../kernel/background.js';
import type { CrashHook } from '../kernel/crash.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { withRequestId } from '../kernel/request-context.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { organizationForCreate } from '../polar-api/actor.js';
import { validationError, type FieldIssue } from '../polar-api/errors.js';
import { compileMeter } from '../meters/aggregates.js';
import { knownValues } from '../meters/known-values.js';
import { isTotalsRace } from '../meters/totals-upsert.js';
import { holdTotals, holdsTotals } from '../meters/pending-totals.js';
import { metersRepository } from '../meters/repository.js';
import { createCustomerIndexer } from './customer-index.js';
import { existing, lookUp, resolveCustomersKept, sameSet, type Indexed, type Lookups } from './ingest-lookups.js';
import { plan, statements, takeGroup, type Built, type Outcome, type Pending } from './ingest-plan.js';
import { eventsRepository } from './repository.js';
import type { EventCreateInput, EventsIngestResponse } from './schemas.js';

/** How far ahead of the server's clock an event may be stamped (clients' clocks drift; beyond that it is a mistake). */
export const MAX_FUTURE_MS = 5 * 60_000;

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
 * then written together by the next transaction (up to MAX_GROUP_EVENTS, ingest-plan.ts), each with its own
 * outcome. On SQLite a group is planned before its transaction, while the group before it writes (see ingestGroup).
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
          knownValues(trx)?.generation === built.known?.generation
        )
          return write(trx, { ...built, writes: rebuiltOn(trx, built.writes) });
        const current = await plan(trx, organizationId, group, await lookUp(trx, organizationId, all, externalIds));
        return write(trx, statements(trx, organizationId, group, current, true));
      });
    }
    if (pipelined) await previous;
    let written: Built | null = null;
    // Two batches inserting the same external ids in different orders wait for each other's, and PostgreSQL aborts
    // one as a deadlock; two groups whose totals both create one customer meter's row fail the later one (a MERGE
    // does not wait out the other's insert). Run again, each finds what the other stored.
    const outcomes = await retryingDeadlocks(
      () =>
        transaction(db, async (trx) => {
          started();
          await metersRepository(trx).lockOrganization(organizationId, 'shared');
          const lookups = await lookUp(trx, organizationId, all, externalIds);
          // On PostgreSQL another transaction may be inserting the same external ids right now (it read before we
          // could see them): the INSERT says which rows are ours, and only those are counted and aggregated.
          const insertFirst = dialect(trx) === 'postgres' && externalIds.length > 0;
          const planned = await plan(trx, organizationId, group, lookups);
          if (insertFirst) {
            const inserted = await eventsRepository(trx).insertReturning(
              planned.accepted.flatMap((batch) => batch.rows),
            );
            for (const batch of planned.accepted) batch.rows = batch.rows.filter((row) => inserted.has(row.id));
          }
          written = statements(trx, organizationId, group, planned, !insertFirst);
          return write(trx, written);
        }),
      isTotalsRace,
    );
    // Committed now: what its values teach is learnt (write() could only where finishWith committed; learning twice
    // changes nothing).
    const known = (written as Built | null)?.known;
    known?.values.learn(known.learnt);
    return outcomes;
  }

  /** Sends the group's statements with the COMMIT; each batch's outcome. */
  async function write(trx: Transaction, built: Built): Promise<Outcome[]> {
    const committed = await finishWith(trx, ...built.writes);
    // Committed (on SQLite finishWith sends the COMMIT; when it cannot, the statements ran and only a COMMIT that
    // fails on its own, a full disk, would leave these counted), and the connection still ours.
    if (holdsTotals(trx)) holdTotals(trx, built.heldTotals, built.now.getTime(), deps);
    // Only what is surely stored: a COMMIT still to come may fail.
    if (committed && built.known) built.known.values.learn(built.known.learnt);
    return Array.from(
      { length: built.batches },
      (_, position): Outcome => built.refusals[position] ?? built.counts.get(position)!,
    );
  }

  /**
   * A call naming several organizations writes each part in that organization's own transactions, so every part is
   * planned first (customers, parents) and any refusal refuses the whole call before anything is written. Only a
   * change between this check and the writes (a customer deleted meanwhile) can still refuse a later part.
   */
  async function checkEveryPart(byOrganization: ReadonlyMap<string, Indexed[]>, now: Date): Promise<void> {
    const issues: FieldIssue[] = [];
    for (const [organizationId, batch] of byOrganization) {
      const externalIds = [...new Set(batch.flatMap(({ input }) => (input.external_id ? [input.external_id] : [])))];
      const pending: Pending = {
        batch,
        now,
        alone: batch.some(({ input }) => !!input.parent_id),
        resolve: () => undefined,
        reject: () => undefined,
      };
      const planned = await plan(db, organizationId, [pending], await lookUp(db, organizationId, batch, externalIds));
      const refusal = planned.refusals[0];
      if (refusal) issues.push(...(refusal.details as FieldIssue[]));
    }
    if (issues.length > 0) throw validationError(issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2])));
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
      if (byOrganization.size > 1) await checkEveryPart(byOrganization, now);
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
