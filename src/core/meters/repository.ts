import type { Db } from '../database/index.js';
import { dialect, markChanged, parseJson, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import type { Metadata } from '../polar-api/schemas.js';
import { customerIndexRepository } from './events-by-customer.js';
import type { Aggregation, Filter, MeterUnit } from './schemas.js';

export interface Meter {
  id: string;
  organizationId: string;
  name: string;
  unit: MeterUnit;
  customLabel: string | null;
  customMultiplier: number | null;
  filter: Filter;
  aggregation: Aggregation;
  metadata: Metadata;
  createdAt: Date;
  modifiedAt: Date | null;
  archivedAt: Date | null;
  /** Null once every event that existed at the last change of filter or aggregation has been counted. */
  backfillTarget: number | null;
  backfillCursor: number;
}

function fromRow(row: Record<string, unknown>): Meter {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    name: String(row.name),
    unit: row.unit as MeterUnit,
    customLabel: (row.custom_label as string | null) ?? null,
    customMultiplier: row.custom_multiplier === null ? null : Number(row.custom_multiplier),
    filter: parseJson<Filter>(row.filter)!,
    aggregation: parseJson<Aggregation>(row.aggregation)!,
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    archivedAt: toDateOrNull(row.archived_at),
    backfillTarget:
      row.backfill_target === null || row.backfill_target === undefined ? null : Number(row.backfill_target),
    backfillCursor: Number(row.backfill_cursor ?? 0),
  };
}

function toRow(meter: Meter): Record<string, unknown> {
  return {
    id: meter.id,
    organization_id: meter.organizationId,
    name: meter.name,
    unit: meter.unit,
    custom_label: meter.customLabel,
    custom_multiplier: meter.customMultiplier,
    filter: JSON.stringify(meter.filter),
    aggregation: JSON.stringify(meter.aggregation),
    metadata: JSON.stringify(meter.metadata),
    created_at: meter.createdAt,
    modified_at: meter.modifiedAt,
    archived_at: meter.archivedAt,
    backfill_target: meter.backfillTarget,
    backfill_cursor: meter.backfillCursor,
  };
}

export interface MeterFilters {
  organizationIds: string[];
  query?: string;
  isArchived?: boolean;
  metadata?: MetadataQuery;
}

// The first key of the two-key advisory locks that order an organization's ingestion against its meter changes.
const METERS_LOCK_SPACE = 7319;

export function metersRepository(db: Db) {
  return {
    /**
     * On PostgreSQL, ingestion holds the organization's lock shared and a meter change holds it exclusive, so a meter's
     * backfill target (the last event when it changed) splits events exactly: those before it are the backfill's,
     * those after were ingested knowing the meter. SQLite's one connection already runs them one after another.
     */
    async lockOrganization(organizationId: string, mode: 'shared' | 'exclusive'): Promise<void> {
      if (dialect(db) !== 'postgres') return;
      const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
      await db.raw(`SELECT ${fn}(?, hashtext(?))`, [METERS_LOCK_SPACE, organizationId]);
    },
    async insert(meter: Meter): Promise<void> {
      markChanged(db, 'meters', meter.organizationId);
      await db('meters').insert(toRow(meter));
    },
    async update(meter: Meter): Promise<void> {
      markChanged(db, 'meters', meter.organizationId);
      const { id, ...row } = toRow(meter);
      await db('meters').where({ id }).update(row);
    },
    async findById(id: string): Promise<Meter | null> {
      const row = await db('meters').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    async findByIds(ids: readonly string[]): Promise<Meter[]> {
      if (ids.length === 0) return [];
      return ((await db('meters').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(fromRow);
    },
    /** The meters ingestion feeds: every meter of the organization that is not archived. */
    async activeOf(organizationId: string): Promise<Meter[]> {
      const rows = (await db('meters').where({ organization_id: organizationId }).whereNull('archived_at')) as Array<
        Record<string, unknown>
      >;
      return rows.map(fromRow);
    },
    async list(filters: MeterFilters, options: ListOptions) {
      const query = db('meters').whereIn('organization_id', filters.organizationIds);
      if (filters.query) whereContains(query, ['name'], filters.query);
      if (filters.isArchived === true) query.whereNotNull('archived_at');
      if (filters.isArchived === false) query.whereNull('archived_at');
      if (filters.metadata) whereMetadata(db, query, filters.metadata);
      const page = await paginate<Record<string, unknown>>(query, options, { created_at: 'created_at', name: 'name' });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    /**
     * The organization's newest event's position: what a backfill starting now has to reach. Found by walking back
     * from the newest event of any organization, which stops at once for an organization still sending. PostgreSQL
     * planned `max(seq)` that way already; SQLite read every entry the organization has in its index by time (a
     * quarter of a second at three million events, holding the one connection) unless kept off it.
     */
    async lastEventSeq(organizationId: string): Promise<number> {
      const query = db('events').orderBy('seq', 'desc').first('seq');
      customerIndexRepository(db).whereOrganizations(query, [organizationId]);
      const row = (await query) as { seq: number | string } | undefined;
      return Number(row?.seq ?? 0);
    },
  };
}
