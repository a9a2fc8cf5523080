import { z } from 'zod';
import type { ProductWire } from './schemas.js';
import { benefitsRepository } from '../benefits/repository.js';
import type { BenefitWire } from '../benefits/schemas.js';
import { benefitSchema } from '../benefits/schemas.js';
import { customFieldsRepository } from '../custom-fields/repository.js';
import type { CustomFieldWire } from '../custom-fields/schemas.js';
import { customFieldSchema } from '../custom-fields/schemas.js';
import type { FileRecord } from '../files/repository.js';
import { filesRepository } from '../files/repository.js';
import { productMediaFileReadSchema } from '../files/schemas.js';
import { fileReadWire } from '../files/wire.js';
import type { FieldIssue } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';

/**
 * What a product embeds from other parts of the catalog — benefits, media files, custom fields — read through
 * those modules' own repositories and wire functions, one query per kind and organization for a whole page.
 */

export const attachedCustomFieldSchema = z
  .object({
    custom_field_id: z.string(),
    custom_field: customFieldSchema,
    order: z.number().int(),
    required: z.boolean(),
  })
  .meta({ id: 'AttachedCustomField' });

export const embeddedSchemas = {
  benefit: benefitSchema,
  media: productMediaFileReadSchema,
  attachedCustomField: attachedCustomFieldSchema,
};

export type ProductMediaWire = z.infer<typeof productMediaFileReadSchema>;
export type AttachedCustomFieldWire = z.infer<typeof attachedCustomFieldSchema>;

export interface EmbedOptions {
  /** The daemon's public URL, for media files' `public_url`. */
  baseUrl: string;
  /**
   * Product wires already built while serving this one request (a checkout confirmation renders the same product
   * for the checkout, the order, the subscription and their events). Never shared between requests, so a catalog
   * change is always seen by the next request.
   */
  memo?: Map<string, ProductWire>;
  /** The daemon's read cache, for the catalog and the selling organization (cache/read-cache.ts). */
  readCache?: ReadCache | null;
}

/** Uploaded, live files among `ids` of the given organizations, by id. */
async function liveFiles(db: Db, organizationIds: string[], ids: readonly string[]): Promise<Map<string, FileRecord>> {
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  const page = await filesRepository(db).list(organizationIds, unique, { page: 1, limit: unique.length, sorting: [] });
  return new Map(page.items.map((file) => [file.id, file]));
}

/** Groups `links` (product id → ordered ids) by the product's organization: each module's lookups are per organization. */
function idsByOrganization(
  products: ReadonlyArray<{ id: string; organizationId: string }>,
  links: Map<string, Array<{ id: string }>>,
): Map<string, string[]> {
  const byOrg = new Map<string, string[]>();
  for (const product of products) {
    const ids = links.get(product.id)?.map((link) => link.id) ?? [];
    if (ids.length > 0) byOrg.set(product.organizationId, [...(byOrg.get(product.organizationId) ?? []), ...ids]);
  }
  return byOrg;
}

export async function loadBenefits(
  db: Db,
  products: ReadonlyArray<{ id: string; organizationId: string }>,
  links: Map<string, Array<{ id: string }>>,
): Promise<Map<string, BenefitWire[]>> {
  const found = new Map<string, BenefitWire>();
  for (const [organizationId, ids] of idsByOrganization(products, links)) {
    // Deleted benefits drop out of the product, as Polar detaches them on deletion.
    for (const benefit of await benefitsRepository(db).findByIds(organizationId, ids)) found.set(benefit.id, benefit);
  }
  return new Map(
    products.map((product) => [product.id, (links.get(product.id) ?? []).flatMap((link) => found.get(link.id) ?? [])]),
  );
}

export async function loadMedias(
  db: Db,
  products: ReadonlyArray<{ id: string; organizationId: string }>,
  links: Map<string, Array<{ id: string }>>,
  options: EmbedOptions,
): Promise<Map<string, ProductMediaWire[]>> {
  const ids = [...links.values()].flat().map((link) => link.id);
  const files = await liveFiles(db, [...new Set(products.map((product) => product.organizationId))], ids);
  return new Map(
    products.map((product) => [
      product.id,
      (links.get(product.id) ?? []).flatMap((link) => {
        const file = files.get(link.id);
        return file && file.organizationId === product.organizationId && file.service === 'product_media'
          ? [fileReadWire(file, options.baseUrl) as ProductMediaWire]
          : [];
      }),
    ]),
  );
}

export async function loadCustomFields(
  db: Db,
  products: ReadonlyArray<{ id: string; organizationId: string }>,
  links: Map<string, Array<{ id: string; order: number; required: boolean }>>,
): Promise<Map<string, AttachedCustomFieldWire[]>> {
  const found = new Map<string, CustomFieldWire>();
  for (const [organizationId, ids] of idsByOrganization(products, links)) {
    for (const field of await customFieldsRepository(db).findByIds(organizationId, ids)) found.set(field.id, field);
  }
  return new Map(
    products.map((product) => [
      product.id,
      (links.get(product.id) ?? []).flatMap((link, order) => {
        const field = found.get(link.id);
        return field ? [{ custom_field_id: field.id, custom_field: field, order, required: link.required }] : [];
      }),
    ]),
  );
}

/**
 * 422 issues for references a product may not carry: benefits, files and custom fields must exist and belong to
 * the product's organization (another organization's id reads as "does not exist"), benefits must not be deleted,
 * files must be uploaded product medias.
 */
export async function checkReferences(
  db: Db,
  organizationId: string,
  refs: { benefits?: readonly string[]; medias?: readonly string[]; customFields?: readonly string[] },
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  if (refs.benefits?.length) {
    const found = new Set(
      (await benefitsRepository(db).findByIds(organizationId, refs.benefits)).map((benefit) => benefit.id),
    );
    refs.benefits.forEach((id, index) => {
      if (!found.has(id))
        issues.push({
          loc: ['body', 'benefits', index],
          msg: 'Benefit does not exist.',
          type: 'value_error',
          input: id,
        });
    });
  }
  if (refs.medias?.length) {
    const files = await liveFiles(db, [organizationId], refs.medias);
    refs.medias.forEach((id, index) => {
      const file = files.get(id);
      if (!file)
        issues.push({
          loc: ['body', 'medias', index],
          msg: 'File does not exist or is not uploaded yet.',
          type: 'value_error',
          input: id,
        });
      else if (file.service !== 'product_media')
        issues.push({
          loc: ['body', 'medias', index],
          msg: 'File is not a product media file.',
          type: 'value_error',
          input: id,
        });
    });
  }
  if (refs.customFields?.length) {
    const found = new Set(
      (await customFieldsRepository(db).findByIds(organizationId, refs.customFields)).map((field) => field.id),
    );
    refs.customFields.forEach((id, index) => {
      if (!found.has(id))
        issues.push({
          loc: ['body', 'attached_custom_fields', index, 'custom_field_id'],
          msg: 'Custom field does not exist.',
          type: 'value_error',
          input: id,
        });
    });
  }
  return issues;
}
