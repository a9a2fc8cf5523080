import { dialect, type Db, type Deferred } from '../database/index.js';
import type { DomainError } from '../kernel/errors.js';
import { uuidv7 } from '../kernel/ids.js';
import { validationError } from '../polar-api/errors.js';
import { meterAggregatesRepository } from '../meters/aggregates-repository.js';
import { aggregateBatch, type BatchDeltas, type CompiledMeter } from '../meters/aggregates.js';
import { knownValues, type KnownValues } from '../meters/known-values.js';
import { holdsTotals } from '../meters/pending-totals.js';
import { customerIssues, eventTypes, resolveParents, type Indexed, type Lookups } from './ingest-lookups.js';
import { eventsRepository, type StoredEvent } from './repository.js';
import type { EventsIngestResponse } from './schemas.js';
import { storedMetadata } from './structured-metadata.js';

/**
 * An ingestion group from its batches to its statements (ingest.ts runs them): which batches are taken together,
 * which are refused, the rows of the others, and what writes those rows and their aggregates.
 */

/**
 * Events per transaction when waiting batches are written together: enough to fold a few batches into one set of
 * aggregate upserts and one COMMIT; beyond about four batches of 1,000, building the statements' text costs more than
 * SQLite saves (bench/events/README.md), and a batch waits longer.
 */
const MAX_GROUP_EVENTS = 4_000;

/** One organization's part of one request, waiting for its transaction. */
export interface Pending {
  batch: Indexed[];
  now: Date;
  /** It names parents, which may be events of a batch written just before it: it goes in a transaction of its own. */
  alone: boolean;
  resolve(result: EventsIngestResponse): void;
  reject(error: unknown): void;
}

export type Outcome = EventsIngestResponse | DomainError;

/**
 * Which batches are refused, and the rows of the others, from what was looked up (a refused batch's external ids
 * are free again for the batches after it). Reads only for a batch naming parents.
 */
export async function plan(
  on: Db,
  organizationId: string,
  group: readonly Pending[],
  lookups: Lookups,
): Promise<Planned> {
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
        metadata: input.metadata ? storedMetadata(input.metadata) : {},
      };
    });
    accepted.push({ position, rows, size: pending.batch.length });
  }
  return { meters: lookups.meters, values: lookups.values ?? null, batches: group.length, refusals, accepted };
}

/**
 * The statements that write a group's accepted rows (the events unless already inserted, their aggregates, their
 * types), built on `on`: compiled, not run through it.
 */
export function statements(
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
  const postgres = dialect(on) === 'postgres';
  // SQLite's one writer takes rows in any order; PostgreSQL's concurrent writers lock them in one.
  const deltas = aggregateBatch(planned.meters, rows, { sorted: postgres });
  const known = planned.values ?? knownValues(on);
  const unknown = known ? known.unknown(deltas) : deltas;
  // On PostgreSQL the totals are merged: ingest.ts runs a group again that meets another's new row (isTotalsRace).
  writes.push(
    ...meterAggregatesRepository(on).deferAdd(held ? { ...unknown, totals: [] } : unknown, now, { merge: postgres }),
  );
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
    known: known
      ? {
          learnt: { uniqueValues: unknown.uniqueValues, bucketValues: unknown.bucketValues },
          generation: known.generation,
          values: known,
        }
      : null,
  };
}

interface Accepted {
  position: number;
  rows: StoredEvent[];
  size: number;
}

/** A group planned: the refused batches' errors by position, the others' rows, the meters they count in. */
export interface Planned {
  meters: CompiledMeter[];
  /** PostgreSQL: the known values it filters through (Lookups.values); on SQLite null, the daemon's are used. */
  values: KnownValues | null;
  /** How many batches the group has: each is refused or accepted. */
  batches: number;
  refusals: Array<DomainError | undefined>;
  accepted: Accepted[];
}

/** A group planned, reduced to its outcomes, with the statements that write it. */
export interface Built extends Omit<Planned, 'accepted' | 'meters' | 'values'> {
  /** Each accepted batch's outcome, by position. */
  counts: ReadonlyMap<number, EventsIngestResponse>;
  writes: Deferred[];
  /** Its totals' deltas where they are held in memory (holdsTotals), added once it commits. */
  heldTotals: BatchDeltas['totals'];
  /** The latest of its batches' times: the aggregates' and event types' `at`. */
  now: Date;
  /**
   * The `unique` meters' values it writes, known to be stored once it commits (meters/known-values.ts), what learns
   * them, and the generation of what was known when it was built (on SQLite, written as built only if nothing was
   * forgotten since).
   */
  known: {
    learnt: Pick<BatchDeltas, 'uniqueValues' | 'bucketValues'>;
    generation: number;
    values: KnownValues;
  } | null;
}

/** The first waiting batches, in arrival order, up to MAX_GROUP_EVENTS events; a batch naming parents alone. */
export function takeGroup(queue: Pending[]): Pending[] {
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
