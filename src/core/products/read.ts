import type { Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { ProductPrice } from './prices.js';
import type { Product } from './repository.js';
import { productsRepository } from './repository.js';
import type { EmbedOptions } from './embedded.js';
import { productWires } from './loaders.js';

export type { ProductPrice } from './prices.js';
export type { Product } from './repository.js';
export { priceWire } from './prices.js';
export { loadPriceMeters } from './price-meters.js';
export { productWires } from './loaders.js';

/**
 * What other parts of Till (checkouts, subscriptions, orders) read about products, without going through the
 * merchant API's permission checks: callers check ownership themselves.
 */

/** A product with its live (non-archived) prices in order, or null. */
export async function findProduct(
  db: Db,
  id: string,
  readCache: ReadCache | null | undefined,
): Promise<(Product & { prices: ProductPrice[] }) | null> {
  const repo = productsRepository(db, readCache);
  const product = await repo.findById(id);
  if (!product) return null;
  return { ...product, prices: (await repo.pricesOf([id])).get(id) ?? [] };
}

/**
 * A price, archived or not (a subscription keeps its price after the merchant replaces it), with its product, or
 * null.
 */
export async function findPrice(
  db: Db,
  priceId: string,
  readCache: ReadCache | null | undefined,
): Promise<{ price: ProductPrice; product: Product } | null> {
  const repo = productsRepository(db, readCache);
  const price = await repo.findPrice(priceId);
  if (!price) return null;
  const product = await repo.findById(price.productId);
  return product ? { price, product } : null;
}

/**
 * Reads products, their wires and the given prices through the daemon's read cache, outside any transaction, so that
 * it keeps them (it is filled only outside transactions): a batch of renewals then finds its catalog there inside its
 * transactions instead of reading it again for every batch. Does nothing without a cache.
 */
export async function warmCatalog(
  db: Db,
  wanted: { productIds: readonly string[]; priceIds: readonly string[] },
  options: EmbedOptions,
): Promise<void> {
  if (!options.readCache || db.isTransaction) return;
  const repo = productsRepository(db, options.readCache);
  await productWires(db, await repo.findByIds(wanted.productIds), options);
  await repo.findPrices(wanted.priceIds);
}
