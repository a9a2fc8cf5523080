import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import { whereEvents, type EventFilters, type EventType } from './repository.js';
import type { EventSource } from './schemas.js';

/** An event type as stored: ingestion's counts, and the label (with its selector) a merchant may set. */
export interface StoredEventType extends EventType {
  labelPropertySelector: string | null;
}

/** An event name with its counts: over the organizations' types, or over the events a filter names. */
export type EventNameStats = Pick<EventType, 'name' | 'label' | 'source' | 'occurrences' | 'firstSeen' | 'lastSeen'>;

/** An event's type, as a map key. */
export function typeKey(event: { organizationId: string; name: string; source: EventSource }): string {
  return `${event.organizationId}\u0000${event.source}\u0000${event.name}`;
}

export interface EventTypeFilters {
  organizationIds: string[];
  query?: string;
  source?: EventSource;
  /**
   * When set, the counts are those of these events (a customer's, the roots, a parent's children), counted from the
   * events themselves; types none of them has are left out.
   */
  events?: EventFilters;
}

export interface EventNameFilters {
  organizationIds: string[];
  query?: string;
  sources?: EventSource[];
  /** As for the types: the counts of these events, when set. */
  events?: EventFilters;
}

/** Sort columns of the types: the counts are the row's, or, counted from a subset of the events, the join's. */
function typeSort(counts: 't' | 's'): Record<string, string> {
  return {
    name: 't.name',
    label: 't.label',
    occurrences: `${counts}.occurrences`,
    first_seen: `${counts}.first_seen`,
    last_seen: `${counts}.last_seen`,
  };
}

const NAME_SORT: Record<string, string> = {
  name: 'name',
  occurrences: 'occurrences',
  first_seen: 'first_seen',
  last_seen: 'last_seen',
};

function typeFromRow(row: Record<string, unknown>): StoredEventType {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    name: String(row.name),
    label: String(row.label),
    labelPropertySelector: (row.label_property_selector as string | null) ?? null,
    source: row.source as EventSource,
    occurrences: Number(row.occurrences),
    firstSeen: Number(row.first_seen),
    lastSeen: Number(row.last_seen),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function ordered(query: Knex.QueryBuilder, options: ListOptions, columns: Record<string, string>): Knex.QueryBuilder {
  const sorted = query.clone();
  for (const criterion of options.sorting) {
    const descending = criterion.startsWith('-');
    const column = columns[descending ? criterion.slice(1) : criterion];
    if (column) sorted.orderBy(column, descending ? 'desc' : 'asc');
  }
  return sorted;
}

/** The counts of the events `filters` names, per (organization, name, source) or per (name, source). */
function eventStats(db: Db, filters: EventFilters, perOrganization: boolean): Knex.QueryBuilder {
  const keys = perOrganization ? ['organization_id', 'name', 'source'] : ['name', 'source'];
  const stats = db('events')
    .select(keys)
    .count({ occurrences: '*' })
    .min({ first_seen: 'timestamp' })
    .max({ last_seen: 'timestamp' })
    .groupBy(keys);
  whereEvents(db, stats, filters);
  return stats;
}

async function counted(db: Db, query: Knex.QueryBuilder): Promise<number> {
  const row = (await db.from(query.clone().as('counted')).count({ n: '*' }).first()) as
    { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

export function eventTypesRepository(db: Db) {
  return {
    async findById(id: string): Promise<StoredEventType | null> {
      const row = (await db('event_types').where({ id }).first()) as Record<string, unknown> | undefined;
      return row ? typeFromRow(row) : null;
    },

    async update(
      id: string,
      changes: { label: string; labelPropertySelector?: string | null; modifiedAt: Date },
    ): Promise<void> {
      await db('event_types')
        .where({ id })
        .update({
          label: changes.label,
          ...(changes.labelPropertySelector !== undefined
            ? { label_property_selector: changes.labelPropertySelector }
            : {}),
          modified_at: changes.modifiedAt,
        });
    },

    /**
     * The organizations' types with their counts: kept at ingestion in the row, or, for a subset of the events,
     * counted from those events and joined to their rows.
     */
    async list(filters: EventTypeFilters, options: ListOptions): Promise<Page<StoredEventType>> {
      const query = db({ t: 'event_types' }).whereIn('t.organization_id', filters.organizationIds);
      if (filters.events) {
        const stats = eventStats(db, filters.events, true).as('s');
        query
          .join(stats, (on) => {
            on.on('s.organization_id', 't.organization_id').andOn('s.name', 't.name').andOn('s.source', 't.source');
          })
          .select(
            't.id',
            't.organization_id',
            't.name',
            't.label',
            't.label_property_selector',
            't.source',
            't.created_at',
            't.modified_at',
            's.occurrences',
            's.first_seen',
            's.last_seen',
          );
      } else query.select('t.*');
      if (filters.query) whereContains(query, ['t.name', 't.label'], filters.query);
      if (filters.source) query.where('t.source', filters.source);
      const total = await counted(db, query);
      const rows = (await ordered(query, options, typeSort(filters.events ? 's' : 't'))
        .orderBy('t.id')
        .limit(options.limit)
        .offset(options.limit * (options.page - 1))) as Array<Record<string, unknown>>;
      return {
        items: rows.map(typeFromRow),
        pagination: { total_count: total, max_page: Math.ceil(total / options.limit) },
      };
    },

    /**
     * Event names across the organizations, each (name, source) once: summed from the types' rows, or counted from
     * the events a filter names. Several organizations may each have a type of one name; it is one name here, as in
     * Polar, labelled by the first of their labels.
     */
    async listNames(filters: EventNameFilters, options: ListOptions): Promise<Page<EventNameStats>> {
      let grouped: Knex.QueryBuilder;
      if (filters.events) {
        grouped = eventStats(db, { ...filters.events, query: filters.query, sources: filters.sources }, false);
      } else {
        grouped = db('event_types')
          .whereIn('organization_id', filters.organizationIds)
          .select('name', 'source')
          .sum({ occurrences: 'occurrences' })
          .min({ first_seen: 'first_seen' })
          .max({ last_seen: 'last_seen' })
          .groupBy('name', 'source');
        if (filters.query) whereContains(grouped, ['name'], filters.query);
        if (filters.sources) grouped.whereIn('source', filters.sources);
      }
      const total = await counted(db, grouped);
      const rows = (await ordered(db.from(grouped.as('g')).select('*'), options, NAME_SORT)
        .orderBy('name')
        .orderBy('source')
        .limit(options.limit)
        .offset(options.limit * (options.page - 1))) as Array<Record<string, unknown>>;
      const labels = await this.labels(
        filters.organizationIds,
        rows.map((row) => String(row.name)),
      );
      return {
        items: rows.map((row) => ({
          name: String(row.name),
          label: labels.get(`${String(row.source)}|${String(row.name)}`) ?? String(row.name),
          source: row.source as EventSource,
          occurrences: Number(row.occurrences),
          firstSeen: Number(row.first_seen),
          lastSeen: Number(row.last_seen),
        })),
        pagination: { total_count: total, max_page: Math.ceil(total / options.limit) },
      };
    },

    /** The labels (and selectors) of these events' types, by typeKey. */
    async labelsOf(
      events: ReadonlyArray<{ organizationId: string; name: string; source: EventSource }>,
    ): Promise<Map<string, { label: string; labelPropertySelector: string | null }>> {
      const labels = new Map<string, { label: string; labelPropertySelector: string | null }>();
      if (events.length === 0) return labels;
      const rows = (await db('event_types')
        .whereIn('organization_id', [...new Set(events.map((event) => event.organizationId))])
        .whereIn('name', [...new Set(events.map((event) => event.name))])
        .select('organization_id', 'name', 'source', 'label', 'label_property_selector')) as Array<
        Record<string, string | null>
      >;
      for (const row of rows)
        labels.set(
          typeKey({ organizationId: row.organization_id!, name: row.name!, source: row.source as EventSource }),
          {
            label: row.label!,
            labelPropertySelector: row.label_property_selector ?? null,
          },
        );
      return labels;
    },

    /** The label of each (source, name) among these names, the first by organization where several have one. */
    async labels(organizationIds: readonly string[], names: readonly string[]): Promise<Map<string, string>> {
      const labels = new Map<string, string>();
      if (names.length === 0) return labels;
      const rows = (await db('event_types')
        .whereIn('organization_id', [...organizationIds])
        .whereIn('name', [...new Set(names)])
        .orderBy('organization_id')
        .select('name', 'source', 'label')) as Array<{ name: string; source: string; label: string }>;
      for (const row of rows) {
        const key = `${row.source}|${row.name}`;
        if (!labels.has(key)) labels.set(key, row.label);
      }
      return labels;
    },
  };
}
