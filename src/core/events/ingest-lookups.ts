import { randomUUID } from 'node:crypto';
import type { Db } from '../database/index.js';
import { changeMark, dialect, perDatabase, storedChangeMark, together } from '../database/index.js';
import { compileMeter, type CompiledMeter } from '../meters/aggregates.js';
import { knownValuesOf, type KnownValues } from '../meters/known-values.js';
import { metersRepository } from '../meters/repository.js';
import type { FieldIssue } from '../polar-api/errors.js';
import { isUuid } from '../polar-api/schemas.js';
import { eventsRepository, type EventType, type StoredEvent } from './repository.js';
import type { EventCreateInput } from './schemas.js';

/**
 * What an ingestion looks up before it writes: meters, customers, external ids, parents; and the event types it
 * counts.
 */

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
  const [byIdRows, byExternalRows] = await customerRows(trx, organizationId, ids, externalIds);
  const byId = new Map<string, CustomerRef>(byIdRows.map((row) => [row.id, row]));
  const byExternalId = new Map<string, CustomerRef>(byExternalRows.map((row) => [row.externalId!, row]));
  return { byId, byExternalId };
}

export type ResolvedCustomers = Awaited<ReturnType<typeof resolveCustomers>>;

function customerRows(db: Db, organizationId: string, ids: ReadonlySet<string>, externalIds: ReadonlySet<string>) {
  const events = eventsRepository(db);
  return together(
    events.customersByIds(organizationId, [...ids]),
    events.customersByExternalIds(organizationId, [...externalIds]),
  );
}

/**
 * resolveCustomers with what it found kept in memory per organization: a storm of usage names the same customers batch
 * after batch, and looking each batch's up again cost SQLite's thread about as much as writing its events, and
 * PostgreSQL about a seventh of its work on a group (bench/events/README.md). What is kept is valid under the
 * organization's change mark for customers (database/change-marks.ts), which any write to its customers moves: counted
 * in memory on SQLite, whose file this daemon holds; stored on PostgreSQL, where another daemon may write them, and
 * read by the group's transaction. Absences are kept too (an id the organization does not have, an external id no
 * customer has yet). Answers the mark it read under: on SQLite a transaction that finds the same mark may write what
 * was planned from it.
 */
export async function resolveCustomersKept(
  db: Db,
  organizationId: string,
  batch: readonly Indexed[],
): Promise<{ customers: ResolvedCustomers; mark: number }> {
  const stored = dialect(db) === 'postgres';
  const mark = stored
    ? await storedChangeMark(db, 'customers', organizationId)
    : changeMark(db, 'customers', organizationId);
  const perOrganization = keptOf(db);
  let kept = perOrganization.get(organizationId);
  if (!kept || kept.mark < mark || kept.byId.size + kept.byExternalId.size > MAX_KEPT) {
    kept = freshKept(mark);
    perOrganization.set(organizationId, kept);
  }
  // PostgreSQL runs two transactions of an organization at once: one that read the mark before a change, when the
  // other read it after, neither uses nor feeds what is kept since.
  if (kept.mark !== mark) kept = freshKept(mark);
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const { input } of batch) {
    if (input.customer_id) {
      if (!kept.byId.has(input.customer_id)) ids.add(input.customer_id);
    } else if (input.external_customer_id && !kept.byExternalId.has(input.external_customer_id))
      externalIds.add(input.external_customer_id);
  }
  // What this batch looked up goes into what is kept. On SQLite not if a write to the organization's customers began
  // meanwhile: then it serves this batch only (and the mark it answers makes the transaction look again). On
  // PostgreSQL what was read after the mark may be newer than it, which the mark then moves past (storedChangeMark).
  let looked = kept;
  if (ids.size > 0 || externalIds.size > 0) {
    const [byIdRows, byExternalRows] = await customerRows(db, organizationId, ids, externalIds);
    if (!stored && changeMark(db, 'customers', organizationId) !== mark) looked = freshKept(mark);
    for (const id of ids) looked.byId.set(id, null);
    for (const row of byIdRows) looked.byId.set(row.id, row);
    for (const externalId of externalIds) looked.byExternalId.set(externalId, null);
    for (const row of byExternalRows) looked.byExternalId.set(row.externalId!, row);
  }
  const byId = new Map<string, CustomerRef>();
  const byExternalId = new Map<string, CustomerRef>();
  for (const { input } of batch) {
    if (input.customer_id) {
      const ref = looked.byId.get(input.customer_id) ?? kept.byId.get(input.customer_id);
      if (ref) byId.set(input.customer_id, ref);
    } else if (input.external_customer_id) {
      const ref =
        looked.byExternalId.get(input.external_customer_id) ?? kept.byExternalId.get(input.external_customer_id);
      if (ref) byExternalId.set(input.external_customer_id, ref);
    }
  }
  return { customers: { byId, byExternalId }, mark };
}

function freshKept(mark: number): Kept {
  return { mark, byId: new Map(), byExternalId: new Map() };
}

/** Bounds what one organization's kept customers hold; past it they are dropped and looked up again. */
const MAX_KEPT = 100_000;

interface Kept {
  mark: number;
  byId: Map<string, CustomerRef | null>;
  byExternalId: Map<string, CustomerRef | null>;
}

const keptOf = perDatabase(() => new Map<string, Kept>());

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

export interface Lookups {
  meters: CompiledMeter[];
  /** PostgreSQL: the organization's known values of `unique` meters, under the stored mark the group read. */
  values?: KnownValues;
  customers: ResolvedCustomers;
  /** Which of the group's external ids are stored already. */
  existing: ReadonlySet<string>;
}

/** What a group's outcome rests on, read on `on`: the active meters, the customers it names, its stored external ids. */
export async function lookUp(
  on: Db,
  organizationId: string,
  all: readonly Indexed[],
  externalIds: string[],
): Promise<Lookups> {
  // SQLite reads afresh here (a group naming parents, or planned from what was kept and found changed); PostgreSQL's
  // transactions keep what they read, under the stored mark.
  const [active, customers] = await together(
    metersRepository(on).activeOf(organizationId),
    dialect(on) === 'postgres'
      ? resolveCustomersKept(on, organizationId, all).then((kept) => kept.customers)
      : resolveCustomers(on, organizationId, all),
  );
  return {
    meters: active.map(compileMeter),
    customers,
    existing: await existing(on, organizationId, externalIds),
    ...(dialect(on) === 'postgres' ? { values: await knownValuesOf(on, organizationId) } : {}),
  };
}

export function existing(on: Db, organizationId: string, externalIds: readonly string[]): Promise<ReadonlySet<string>> {
  return externalIds.length > 0
    ? eventsRepository(on).existingExternalIds(organizationId, externalIds)
    : Promise.resolve(new Set<string>());
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}
