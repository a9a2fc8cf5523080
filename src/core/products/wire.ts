import type { Db } from '../kernel/db.js';
import { iso, isoOrNull } from '../merchant/schemas.js';
import type { EmbedOptions } from './embedded.js';
import { loadBenefits, loadCustomFields, loadMedias } from './embedded.js';
import { priceWire } from './prices.js';
import type { Product } from './repository.js';
import { productsRepository } from './repository.js';
import type { ProductWire } from './schemas.js';

/**
 * Polar's Product objects for many products at once: prices, benefits, medias and custom fields are each read in
 * one go for the whole list, never once per product. `prices` are the live ones; archived prices stay readable
 * through findPrice.
 */
export async function productWires(db: Db, all: readonly Product[], options: EmbedOptions): Promise<ProductWire[]> {
  const { memo } = options;
  if (memo && all.every((product) => memo.has(product.id))) return all.map((product) => memo.get(product.id)!);
  const built = await buildWires(db, memo ? all.filter((product) => !memo.has(product.id)) : all, options);
  if (!memo) return built;
  for (const wire of built) memo.set(wire.id, wire);
  return all.map((product) => memo.get(product.id)!);
}

async function buildWires(db: Db, products: readonly Product[], options: EmbedOptions): Promise<ProductWire[]> {
  if (products.length === 0) return [];
  const repo = productsRepository(db);
  const ids = products.map((product) => product.id);
  // One after another: inside a transaction there is one connection, and on SQLite only one at all.
  const prices = await repo.pricesOf(ids);
  const benefitLinks = await repo.links('product_benefits', ids);
  const mediaLinks = await repo.links('product_medias', ids);
  const fieldLinks = await repo.links('product_custom_fields', ids);
  const benefits = await loadBenefits(db, products, benefitLinks);
  const medias = await loadMedias(db, products, mediaLinks, options);
  const fields = await loadCustomFields(db, products, fieldLinks);
  return products.map((product) => ({
    id: product.id,
    created_at: iso(product.createdAt),
    modified_at: isoOrNull(product.modifiedAt),
    trial_interval: product.trialInterval,
    trial_interval_count: product.trialIntervalCount,
    name: product.name,
    description: product.description,
    visibility: product.visibility,
    recurring_interval: product.recurringInterval,
    recurring_interval_count: product.recurringIntervalCount,
    meter_interval: null,
    meter_interval_count: null,
    is_recurring: product.recurringInterval !== null,
    is_archived: product.isArchived,
    organization_id: product.organizationId,
    metadata: product.metadata,
    prices: (prices.get(product.id) ?? []).map(priceWire),
    benefits: benefits.get(product.id) ?? [],
    medias: medias.get(product.id) ?? [],
    attached_custom_fields: fields.get(product.id) ?? [],
  }));
}
