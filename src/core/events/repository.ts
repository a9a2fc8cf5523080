import type { Knex } from 'knex';
import { MINUTE } from '../kernel/clock.js';
import type { Db, Deferred } from '../database/index.js';
import { dialect, parseJson, postgresArray, rawRows, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { insertJsonRows, type JsonColumn } from '../meters/json-rows.js';
import { customerIndexRepository } from '../meters/events-by-customer.js';
import type { EventSource } from './schemas.js';

export interface StoredEvent {
  id: string;
  organizationId: string;
  customerId: string | null;
  externalCustomerId: string | null;
  memberId: string | null;
  externalMemberId: string | null;
  name: string;
  source: EventSource;
  timestamp: number;
  ingestedAt: number;
  externalId: string | null;
  parentId: string | null;
  metadata: Record<string, unknown>;
}

export interface EventType {
  id: string;
  organizationId: string;
  name: string;
  label: string;
  source: EventSource;
  occurrences: number;
  firstSeen: number;
  lastSeen: number;
  createdAt: Date;
  modifiedAt: Date | null;
}

/**
 * SQLite indexes an organization's events by the minute of their timestamp (migrations/20270103000000_events_by_minute.ts
 * says why). Queries name the minute exactly as the index does, so the planner can use it; SQLite's integer division
 * truncates, as Math.trunc does, and never reorders timestamps.
 */
const TIMESTAMP_MINUTE = `timestamp / ${MINUTE}`;

const EVENT_COLUMNS: JsonColumn[] = [
  { name: 'id', type: 'uuid' },
  { name: 'organization_id', type: 'text' },
  { name: 'customer_id', type: 'uuid' },
  { name: 'external_customer_id', type: 'text' },
  { name: 'member_id', type: 'uuid' },
  { name: 'external_member_id', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'source', type: 'text' },
  { name: 'timestamp', type: 'bigint' },
  { name: 'ingested_at', type: 'bigint' },
  { name: 'external_id', type: 'text' },
  { name: 'parent_id', type: 'uuid' },
  { name: 'metadata', type: 'json' },
];

function fromRow(row: Record<string, unknown>): StoredEvent {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    customerId: (row.customer_id as string | null) ?? null,
    externalCustomerId: (row.external_customer_id as string | null) ?? null,
    memberId: (row.member_id as string | null) ?? null,
    externalMemberId: (row.external_member_id as string | null) ?? null,
    name: String(row.name),
    source: row.source as EventSource,
    timestamp: Number(row.timestamp),
    ingestedAt: Number(row.ingested_at),
    externalId: (row.external_id as string | null) ?? null,
    parentId: (row.parent_id as string | null) ?? null,
    metadata: parseJson<Record<string, unknown>>(row.metadata) ?? {},
  };
}

export interface EventFilters {
  organizationIds: string[];
  /** Customers' ids, with the external ids their pending events were sent under. */
  customers?: { ids: string[]; externalIds: string[] };
  externalCustomerIds?: string[];
  names?: string[];
  sources?: EventSource[];
  from?: number;
  to?: number;
  query?: string;
  parentId?: string;
  metadata?: MetadataQuery;
  /** Only events without a parent. */
  rootsOnly?: boolean;
  /** Polar's `depth`, below `anchorId` (which replaces `parentId`) or below the roots. */
  tree?: { depth: number; anchorId?: string };
  where?: (query: Knex.QueryBuilder) => void;
}

/**
 * Narrows a query on `events` (unaliased) to the events `filters` name: the events list's conditions, shared by the
 * event names and event types when they count a customer's or a subtree's events.
 */
export function whereEvents(db: Db, query: Knex.QueryBuilder, filters: EventFilters): void {
  if (filters.customers) {
    const { ids, externalIds } = filters.customers;
    const byCustomer = customerIndexRepository(db);
    byCustomer.whereOrganizations(query, filters.organizationIds);
    query.where((who) => {
      who.where(byCustomer.ofCustomers(ids));
      if (externalIds.length > 0)
        who.orWhere((pending) => {
          pending
            .whereIn('organization_id', filters.organizationIds)
            .whereNull('customer_id')
            .whereIn('external_customer_id', externalIds);
        });
    });
  } else query.whereIn('organization_id', filters.organizationIds);
  if (filters.externalCustomerIds) query.whereIn('external_customer_id', filters.externalCustomerIds);
  if (filters.names) query.whereIn('name', filters.names);
  if (filters.sources) query.whereIn('source', filters.sources);
  const byMinute = dialect(db) === 'sqlite';
  if (filters.from !== undefined) {
    query.where('timestamp', '>=', filters.from);
    if (byMinute) query.whereRaw(`${TIMESTAMP_MINUTE} >= ?`, [Math.trunc(filters.from / MINUTE)]);
  }
  if (filters.to !== undefined) {
    query.where('timestamp', '<=', filters.to);
    if (byMinute) query.whereRaw(`${TIMESTAMP_MINUTE} <= ?`, [Math.trunc(filters.to / MINUTE)]);
  }
  if (filters.query) whereContains(query, ['name'], filters.query);
  if (filters.parentId) query.where('parent_id', filters.parentId);
  if (filters.metadata) whereMetadata(db, query, filters.metadata);
  if (filters.where) filters.where(query);
  if (filters.rootsOnly) query.whereNull('events.parent_id');
  if (filters.tree) whereInTree(query, filters.tree);
}

/**
 * Polar's `depth`: with an anchor, its descendants down to `depth` levels, not the anchor itself (as Polar's
 * ancestors filter: position 1 to `depth`), read down from it by the parent index (a subtree is small); without, the events at most `depth` levels below a root. Those are read up,
 * each event's ancestors looked up by id (at most 5), since reading down from every root of an organization reads
 * them all.
 */
function whereInTree(query: Knex.QueryBuilder, tree: { depth: number; anchorId?: string }): void {
  if (tree.anchorId !== undefined) {
    query.whereRaw(
      'events.id IN (WITH RECURSIVE tree(id, level) AS (SELECT id, 0 FROM events WHERE id = ? UNION ALL SELECT child.id, tree.level + 1 FROM events AS child JOIN tree ON child.parent_id = tree.id WHERE tree.level < ?) SELECT id FROM tree WHERE level > 0)',
      [tree.anchorId, tree.depth],
    );
    return;
  }
  // The ancestor `depth + 1` levels up is null exactly when the event is at most `depth` levels below a root.
  let ancestor = 'events.parent_id';
  for (let level = 1; level <= tree.depth; level++)
    ancestor = `(SELECT a${level}.parent_id FROM events AS a${level} WHERE a${level}.id = ${ancestor})`;
  query.whereRaw(`${ancestor} IS NULL`);
}

export function eventsRepository(db: Db) {
  return {
    /**
     * One INSERT for a whole batch (a duplicate external id is skipped, never an error). Without external ids nothing
     * can conflict (ids are new, seqs drawn), so no ON CONFLICT: on PostgreSQL it checked every unique index before
     * each row went in.
     */
    deferInsert(events: readonly StoredEvent[]): Deferred[] {
      if (events.length === 0) return [];
      const rows = events.map((event) => [
        event.id,
        event.organizationId,
        event.customerId,
        event.externalCustomerId,
        event.memberId,
        event.externalMemberId,
        event.name,
        event.source,
        event.timestamp,
        event.ingestedAt,
        event.externalId,
        event.parentId,
        event.metadata,
      ]);
      const named = events.some((event) => event.externalId !== null);
      return [insertJsonRows(db, 'events', EVENT_COLUMNS, rows, named ? 'ON CONFLICT DO NOTHING' : '')];
    },

    /**
     * The same, returning the ids that were inserted: on PostgreSQL two transactions may insert one external id at
     * once, and only the one that wrote it may count it.
     */
    async insertReturning(events: readonly StoredEvent[]): Promise<Set<string>> {
      const inserted = new Set<string>();
      for (const statement of this.deferInsert(events)) {
        const sql = (statement as Knex.Raw).toSQL();
        const result = (await db.raw(`${sql.sql} RETURNING id`, sql.bindings)) as
          { rows?: Array<{ id: string }> } | Array<{ id: string }>;
        for (const row of Array.isArray(result) ? result : (result.rows ?? [])) inserted.add(String(row.id));
      }
      return inserted;
    },

    /** Live customers of the organization among these ids (the ingestion's check and resolution). */
    async customersByIds(organizationId: string, ids: readonly string[]) {
      return this.customerRefs(organizationId, 'id', ids);
    },
    async customersByExternalIds(organizationId: string, externalIds: readonly string[]) {
      return this.customerRefs(organizationId, 'external_id', externalIds);
    },
    /**
     * One statement with one bound value however many ids a batch names (its SQL is prepared once), probing the index
     * per value: PostgreSQL gets an array (a set-returning function is guessed at 100 rows and joined by scanning the
     * organization's customers), SQLite a JSON array walked first (with `IN (SELECT …)` it scanned the organization's
     * customers by their (organization, created_at) index).
     */
    async customerRefs(organizationId: string, column: 'id' | 'external_id', values: readonly string[]) {
      if (values.length === 0) return [];
      const rows = (
        dialect(db) === 'postgres'
          ? await db('customers')
              .where('organization_id', organizationId)
              .whereNull('deleted_at')
              .whereRaw(`?? = ANY(?::${column === 'id' ? 'uuid' : 'text'}[])`, [column, postgresArray(values)])
              .select('id', 'external_id')
          : rawRows(
              await db.raw(
                `SELECT c.id, c.external_id FROM json_each(?) AS wanted CROSS JOIN customers AS c ON c.${column} = wanted.value WHERE c.organization_id = ? AND c.deleted_at IS NULL`,
                [JSON.stringify(values), organizationId],
              ),
            )
      ) as Array<{ id: string; external_id: string | null }>;
      return rows.map((row) => ({ id: row.id, externalId: row.external_id }));
    },

    /** Which of these external ids the organization's events already use. */
    async existingExternalIds(organizationId: string, externalIds: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let i = 0; i < externalIds.length; i += 500) {
        const rows = (await db('events')
          .where('organization_id', organizationId)
          .whereIn('external_id', externalIds.slice(i, i + 500))
          .select('external_id')) as Array<{ external_id: string }>;
        for (const row of rows) found.add(row.external_id);
      }
      return found;
    },

    /** Events of the organization named by id or by external id (parents), as id by reference. */
    async idsByReference(organizationId: string, references: readonly string[], uuids: readonly string[]) {
      const found = new Map<string, string>();
      if (references.length === 0) return found;
      const rows = (await db('events')
        .where('organization_id', organizationId)
        .where((where) => {
          where.whereIn('external_id', [...references]);
          if (uuids.length > 0) where.orWhereIn('id', [...uuids]);
        })
        .select('id', 'external_id')) as Array<{ id: string; external_id: string | null }>;
      for (const row of rows) {
        found.set(row.id, row.id);
        if (row.external_id !== null) found.set(row.external_id, row.id);
      }
      return found;
    },

    /**
     * Adds a batch's occurrences to its event types (a new name gets its row). A conflict moves only the counts: the
     * label, its selector and modified_at are the merchant's once set (`PATCH /v1/event-types/{id}`).
     */
    deferCountTypes(types: readonly EventType[]): Deferred | null {
      if (types.length === 0) return null;
      const at = types[0]!.createdAt;
      return db.raw(
        `INSERT INTO event_types (id, organization_id, name, label, source, occurrences, first_seen, last_seen, created_at, modified_at) VALUES ${types.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (organization_id, name, source) DO UPDATE SET occurrences = event_types.occurrences + excluded.occurrences, first_seen = CASE WHEN excluded.first_seen < event_types.first_seen THEN excluded.first_seen ELSE event_types.first_seen END, last_seen = CASE WHEN excluded.last_seen > event_types.last_seen THEN excluded.last_seen ELSE event_types.last_seen END`,
        types.flatMap((type) => [
          type.id,
          type.organizationId,
          type.name,
          type.label,
          type.source,
          type.occurrences,
          type.firstSeen,
          type.lastSeen,
          at,
          null,
        ]),
      );
    },

    async findById(id: string): Promise<StoredEvent | null> {
      const row = await db('events').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    async list(filters: EventFilters, options: ListOptions) {
      const query = db('events');
      whereEvents(db, query, filters);
      const byMinute = dialect(db) === 'sqlite';
      const countRow = (await query.clone().count({ n: '*' }).first()) as { n: number | string } | undefined;
      const total = Number(countRow?.n ?? 0);
      const ordered = query.clone();
      for (const criterion of options.sorting) {
        const direction = criterion.startsWith('-') ? 'desc' : 'asc';
        // The minute first, as SQLite's index has it: the same order, sorted one minute at a time.
        if (byMinute) ordered.orderBy(db.raw(TIMESTAMP_MINUTE), direction);
        ordered.orderBy('timestamp', direction);
      }
      ordered.orderBy('seq', options.sorting[0]?.startsWith('-') ? 'desc' : 'asc');
      const rows = (await ordered.limit(options.limit).offset(options.limit * (options.page - 1))) as Array<
        Record<string, unknown>
      >;
      return {
        items: rows.map(fromRow),
        pagination: { total_count: total, max_page: Math.ceil(total / options.limit) },
      };
    },

    /** How many events name each of these as parent. */
    async childCounts(ids: readonly string[]): Promise<Map<string, number>> {
      const counts = new Map<string, number>();
      if (ids.length === 0) return counts;
      const rows = (await db('events')
        .whereIn('parent_id', [...ids])
        .groupBy('parent_id')
        .select('parent_id', db.raw('count(*) as n'))) as Array<{ parent_id: string; n: number | string }>;
      for (const row of rows) counts.set(row.parent_id, Number(row.n));
      return counts;
    },

    dialect: () => dialect(db),
  };
}
