import { together, type Db } from '../database/index.js';
import { beginCatalogRead, cachedWire, keepWire } from './catalog-cache.js';
import type { EmbedOptions } from './embedded.js';
import { loadBenefits, loadCustomFields, loadMedias } from './embedded.js';
import type { Product } from './repository.js';
import { loadPriceMeters } from './price-meters.js';
import { productsRepository } from './repository.js';
import type { ProductWire } from './schemas.js';
import { productWire } from './wire.js';

/**
 * Polar's Product objects for many products at once: prices, benefits, medias and custom fields are each read in
 * one go for the whole list, never once per product. `prices` are the live ones; archived prices stay readable
 * through findPrice.
 *
 * Wires come from the request's memo, then the daemon's catalog cache (frozen, and only for the very version of
 * the product given), and are built only for the rest.
 */
export async function productWires(db: Db, all: readonly Product[], options: EmbedOptions): Promise<ProductWire[]> {
  const { memo } = options;
  const found = new Map<string, ProductWire>();
  for (const product of all) {
    const known = memo?.get(product.id) ?? cachedWire<ProductWire>(options.readCache, db, product);
    if (known) found.set(product.id, known);
  }
  const missing = all.filter((product) => !found.has(product.id));
  if (missing.length > 0) {
    const readEpoch = beginCatalogRead(options.readCache, db);
    const built = await buildWires(db, missing, options);
    missing.forEach((product, index) =>
      found.set(product.id, keepWire(options.readCache, db, readEpoch, product, built[index]!)),
    );
  }
  if (memo) for (const [id, wire] of found) memo.set(id, wire);
  return all.map((product) => found.get(product.id)!);
}

async function buildWires(db: Db, products: readonly Product[], options: EmbedOptions): Promise<ProductWire[]> {
  if (products.length === 0) return [];
  const repo = productsRepository(db, options.readCache);
  const ids = products.map((product) => product.id);
  // Reads that do not depend on each other go together: two trips instead of eight (inside a transaction, or on
  // SQLite, one connection answers them all).
  const [prices, benefitLinks, mediaLinks, fieldLinks] = await together(
    repo.pricesOf(ids),
    repo.links('product_benefits', ids),
    repo.links('product_medias', ids),
    repo.links('product_custom_fields', ids),
  );
  const [benefits, medias, fields, meters] = await together(
    loadBenefits(db, products, benefitLinks),
    loadMedias(db, products, mediaLinks, options),
    loadCustomFields(db, products, fieldLinks),
    loadPriceMeters(db, [...prices.values()].flat()),
  );
  return products.map((product) =>
    productWire(product, {
      prices: prices.get(product.id) ?? [],
      meters,
      benefits: benefits.get(product.id) ?? [],
      medias: medias.get(product.id) ?? [],
      fields: fields.get(product.id) ?? [],
    }),
  );
}
