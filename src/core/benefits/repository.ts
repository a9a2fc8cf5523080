import type { Db } from '../database/index.js';
import { parseJson, toBool, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { Metadata } from '../polar-api/schemas.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { AnyReadProperties, BenefitType } from './properties.js';
import type { BenefitVisibility, BenefitWire } from './schemas.js';

export interface Benefit {
  id: string;
  organizationId: string;
  type: BenefitType;
  description: string;
  selectable: boolean;
  deletable: boolean;
  visibility: BenefitVisibility;
  metadata: Metadata;
  properties: AnyReadProperties;
  createdAt: Date;
  modifiedAt: Date | null;
  deletedAt: Date | null;
}

export interface BenefitFilter {
  organizationIds: string[];
  types?: BenefitType[];
  ids?: string[];
  excludeIds?: string[];
  query?: string;
}

function fromRow(row: Record<string, unknown>): Benefit {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    type: String(row.type) as BenefitType,
    description: String(row.description),
    selectable: toBool(row.selectable),
    deletable: toBool(row.deletable),
    visibility: String(row.visibility) as BenefitVisibility,
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    properties: parseJson<AnyReadProperties>(row.properties)!,
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

export function benefitWire(benefit: Benefit): BenefitWire {
  return {
    id: benefit.id,
    created_at: iso(benefit.createdAt),
    modified_at: isoOrNull(benefit.modifiedAt),
    type: benefit.type,
    description: benefit.description,
    selectable: benefit.selectable,
    deletable: benefit.deletable,
    is_deleted: benefit.deletedAt !== null,
    organization_id: benefit.organizationId,
    metadata: benefit.metadata,
    visibility: benefit.visibility,
    // Till has no benefit whose portal visibility is fixed by the platform.
    visibility_configurable: true,
    properties: benefit.properties,
  } as BenefitWire;
}

export function benefitsRepository(db: Db) {
  return {
    async insert(benefit: Benefit): Promise<void> {
      await db('benefits').insert({
        id: benefit.id,
        organization_id: benefit.organizationId,
        type: benefit.type,
        description: benefit.description,
        selectable: benefit.selectable,
        deletable: benefit.deletable,
        visibility: benefit.visibility,
        metadata: JSON.stringify(benefit.metadata),
        properties: JSON.stringify(benefit.properties),
        created_at: benefit.createdAt,
        modified_at: benefit.modifiedAt,
        deleted_at: null,
      });
    },

    /** A live (not deleted) benefit. */
    async findById(id: string): Promise<Benefit | null> {
      const row = await db('benefits').where({ id }).whereNull('deleted_at').first();
      return row ? fromRow(row) : null;
    },

    /**
     * The Benefit wire objects of one organization's benefits, in the order of `ids`, for resources that embed
     * them (a product's `benefits`). Unknown, foreign and deleted ids are left out unless `includeDeleted`.
     */
    async findByIds(
      organizationId: string,
      ids: readonly string[],
      options: { includeDeleted?: boolean } = {},
    ): Promise<BenefitWire[]> {
      if (ids.length === 0) return [];
      const query = db('benefits')
        .where({ organization_id: organizationId })
        .whereIn('id', [...new Set(ids)]);
      if (!options.includeDeleted) query.whereNull('deleted_at');
      const byId = new Map(
        (await query).map((row: Record<string, unknown>) => [String(row.id), benefitWire(fromRow(row))]),
      );
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    async list(filter: BenefitFilter, options: ListOptions) {
      const query = db('benefits').whereIn('organization_id', filter.organizationIds).whereNull('deleted_at');
      if (filter.types?.length) query.whereIn('type', filter.types);
      if (filter.ids?.length) query.whereIn('id', filter.ids);
      if (filter.excludeIds?.length) query.whereNotIn('id', filter.excludeIds);
      if (filter.query) whereContains(query, ['description'], filter.query);
      // user_order is the merchant's manual order in Polar's dashboard; Till has none, so it is creation order.
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        description: 'description',
        type: 'type',
        user_order: 'created_at',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    async update(
      id: string,
      changes: {
        description?: string;
        metadata?: Metadata;
        visibility?: BenefitVisibility;
        properties?: AnyReadProperties;
        modifiedAt: Date;
      },
    ): Promise<void> {
      await db('benefits')
        .where({ id })
        .update({
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          ...(changes.metadata !== undefined ? { metadata: JSON.stringify(changes.metadata) } : {}),
          ...(changes.visibility !== undefined ? { visibility: changes.visibility } : {}),
          ...(changes.properties !== undefined ? { properties: JSON.stringify(changes.properties) } : {}),
          modified_at: changes.modifiedAt,
        });
    },

    async softDelete(id: string, at: Date): Promise<void> {
      await db('benefits').where({ id }).whereNull('deleted_at').update({ deleted_at: at, modified_at: at });
    },

    /** How many products carry the benefit (the products module owns `product_benefits`). */
    async productCount(id: string): Promise<number> {
      if (!(await db.schema.hasTable('product_benefits'))) return 0;
      const row = (await db('product_benefits').where({ benefit_id: id }).count({ n: '*' }).first()) as
        { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },

    /** The ids among `ids` that are live downloadable files of the organization (the files module owns `files`). */
    async downloadableFileIds(organizationId: string, ids: readonly string[]): Promise<Set<string>> {
      const rows = (await db('files')
        .where({ organization_id: organizationId, service: 'downloadable' })
        .whereNull('deleted_at')
        .whereIn('id', [...new Set(ids)])
        .select('id')) as Array<{ id: string }>;
      return new Set(rows.map((row) => String(row.id)));
    },

    async ownsMeter(organizationId: string, meterId: string): Promise<boolean> {
      const row = await db('meters').where({ organization_id: organizationId, id: meterId }).first('id');
      return row !== undefined;
    },
  };
}

export type BenefitsRepository = ReturnType<typeof benefitsRepository>;
