import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { Metadata } from '../polar-api/schemas.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { CustomFieldProperties, CustomFieldType } from './properties.js';
import type { CustomFieldWire } from './schemas.js';

export interface CustomField {
  id: string;
  organizationId: string;
  type: CustomFieldType;
  slug: string;
  name: string;
  properties: CustomFieldProperties;
  metadata: Metadata;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface CustomFieldFilter {
  organizationIds: string[];
  types?: CustomFieldType[];
  query?: string;
}

function fromRow(row: Record<string, unknown>): CustomField {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    type: String(row.type) as CustomFieldType,
    slug: String(row.slug),
    name: String(row.name),
    properties: parseJson<CustomFieldProperties>(row.properties) ?? {},
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function customFieldWire(field: CustomField): CustomFieldWire {
  return {
    created_at: iso(field.createdAt),
    modified_at: isoOrNull(field.modifiedAt),
    id: field.id,
    metadata: field.metadata,
    type: field.type,
    slug: field.slug,
    name: field.name,
    organization_id: field.organizationId,
    properties: field.properties,
  } as CustomFieldWire;
}

export function customFieldsRepository(db: Db) {
  return {
    async insert(field: CustomField): Promise<void> {
      await db('custom_fields').insert({
        id: field.id,
        organization_id: field.organizationId,
        type: field.type,
        slug: field.slug,
        name: field.name,
        properties: JSON.stringify(field.properties),
        metadata: JSON.stringify(field.metadata),
        created_at: field.createdAt,
        modified_at: field.modifiedAt,
      });
    },

    async findById(id: string): Promise<CustomField | null> {
      const row = await db('custom_fields').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    /**
     * The CustomField wire objects of one organization's fields, in the order of `ids`, for resources that embed
     * them (a product's `attached_custom_fields`). Unknown and foreign ids are left out.
     */
    async findByIds(organizationId: string, ids: readonly string[]): Promise<CustomFieldWire[]> {
      if (ids.length === 0) return [];
      const rows = await db('custom_fields')
        .where({ organization_id: organizationId })
        .whereIn('id', [...new Set(ids)]);
      const byId = new Map(rows.map((row: Record<string, unknown>) => [String(row.id), customFieldWire(fromRow(row))]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    async list(filter: CustomFieldFilter, options: ListOptions) {
      const query = db('custom_fields').whereIn('organization_id', filter.organizationIds);
      if (filter.types?.length) query.whereIn('type', filter.types);
      if (filter.query) whereContains(query, ['name', 'slug'], filter.query);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        slug: 'slug',
        name: 'name',
        type: 'type',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    async update(
      id: string,
      changes: {
        slug?: string;
        name?: string;
        metadata?: Metadata;
        properties?: CustomFieldProperties;
        modifiedAt: Date;
      },
    ): Promise<void> {
      await db('custom_fields')
        .where({ id })
        .update({
          ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.metadata !== undefined ? { metadata: JSON.stringify(changes.metadata) } : {}),
          ...(changes.properties !== undefined ? { properties: JSON.stringify(changes.properties) } : {}),
          modified_at: changes.modifiedAt,
        });
    },

    /** Products that asked for the field stop asking: `product_custom_fields` rows go with it (ON DELETE CASCADE). */
    async delete(id: string): Promise<void> {
      await db('custom_fields').where({ id }).delete();
    },
  };
}

export type CustomFieldsRepository = ReturnType<typeof customFieldsRepository>;
