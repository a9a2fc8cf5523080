import type { Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { ProductPrice } from './prices.js';
import type { Product } from './repository.js';

/**
 * The catalog as every checkout reads it — products, their live prices, prices by id — kept across requests in the
 * daemon's read cache (cache/read-cache.ts), handed to each function by its caller, owned by the product's organization. Every write that changes what
 * these hold announces the organization (products, benefits, custom fields, files and meters services), so the next
 * request reads the change. Product wires are cached in loaders.ts on top of these.
 */

const productKey = (id: string) => `product:${id}`;
const livePricesKey = (productId: string) => `prices:${productId}`;
const priceKey = (id: string) => `price:${id}`;

/** Products by id through the cache; unknown ids are left out (and never cached). */
export async function cachedProducts(
  readCache: ReadCache | null | undefined,
  db: Db,
  ids: readonly string[],
  load: (ids: string[]) => Promise<Product[]>,
): Promise<Product[]> {
  const unique = [...new Set(ids)];
  const cache = readCache?.for(db);
  if (!cache) return load(unique);
  const found = new Map<string, Product>();
  const missing: string[] = [];
  for (const id of unique) {
    const hit = cache.get<Product>(db, productKey(id));
    if (hit) found.set(id, hit);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const readEpoch = cache.beginRead();
    for (const product of await load(missing))
      found.set(product.id, cache.keep(db, readEpoch, productKey(product.id), product.organizationId, product));
  }
  return unique.flatMap((id) => found.get(id) ?? []);
}

/** The organization owning a cached product: entries about a product are kept only while it is known. */
function ownerOf(cache: ReadCache, db: Db, productId: string): string | null {
  return cache.get<Product>(db, productKey(productId))?.organizationId ?? null;
}

export async function cachedPrice(
  readCache: ReadCache | null | undefined,
  db: Db,
  id: string,
  load: () => Promise<ProductPrice | null>,
): Promise<ProductPrice | null> {
  const cache = readCache?.for(db);
  if (!cache) return load();
  const hit = cache.get<ProductPrice>(db, priceKey(id));
  if (hit) return hit;
  const readEpoch = cache.beginRead();
  const price = await load();
  const owner = price ? ownerOf(cache, db, price.productId) : null;
  return price && owner ? cache.keep(db, readEpoch, priceKey(id), owner, price) : price;
}

/** Prices by id through the cache, the misses read in one go; unknown ids are left out. */
export async function cachedPrices(
  readCache: ReadCache | null | undefined,
  db: Db,
  ids: readonly string[],
  load: (ids: string[]) => Promise<ProductPrice[]>,
): Promise<ProductPrice[]> {
  const unique = [...new Set(ids)];
  const cache = readCache?.for(db);
  if (!cache) return load(unique);
  const found = new Map<string, ProductPrice>();
  const missing: string[] = [];
  for (const id of unique) {
    const hit = cache.get<ProductPrice>(db, priceKey(id));
    if (hit) found.set(id, hit);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const readEpoch = cache.beginRead();
    for (const price of await load(missing)) {
      const owner = ownerOf(cache, db, price.productId);
      found.set(price.id, owner ? cache.keep(db, readEpoch, priceKey(price.id), owner, price) : price);
    }
  }
  return unique.flatMap((id) => found.get(id) ?? []);
}

/** Live prices of many products, in each product's order, through the cache. */
export async function cachedLivePrices(
  readCache: ReadCache | null | undefined,
  db: Db,
  productIds: readonly string[],
  load: (productIds: string[]) => Promise<Map<string, ProductPrice[]>>,
): Promise<Map<string, ProductPrice[]>> {
  const unique = [...new Set(productIds)];
  const cache = readCache?.for(db);
  if (!cache) return load(unique);
  const byProduct = new Map<string, ProductPrice[]>();
  const missing: string[] = [];
  for (const id of unique) {
    const hit = cache.get<ProductPrice[]>(db, livePricesKey(id));
    if (hit) byProduct.set(id, hit);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const readEpoch = cache.beginRead();
    const loaded = await load(missing);
    for (const id of missing) {
      const prices = loaded.get(id) ?? [];
      const owner = ownerOf(cache, db, id);
      if (!owner) {
        if (prices.length > 0) byProduct.set(id, prices);
        continue;
      }
      // A live price is also a price by id: the checkout's own price is then known without a read of its own.
      for (const price of prices) cache.keep(db, readEpoch, priceKey(price.id), owner, price);
      const kept = cache.keep(db, readEpoch, livePricesKey(id), owner, prices);
      if (kept.length > 0) byProduct.set(id, kept);
    }
  }
  // The map itself is the caller's; only the lists in it are shared.
  return new Map(unique.flatMap((id) => (byProduct.has(id) ? [[id, byProduct.get(id)!] as const] : [])));
}

const wireKey = (productId: string) => `wire:${productId}`;

interface CachedWire<W> {
  /** The product the wire was built from, as JSON: a caller holding a different version of it gets a fresh wire. */
  source: string;
  wire: W;
}

export function cachedWire<W>(readCache: ReadCache | null | undefined, db: Db, product: Product): W | undefined {
  const entry = readCache?.for(db)?.get<CachedWire<W>>(db, wireKey(product.id));
  return entry && entry.source === JSON.stringify(product) ? entry.wire : undefined;
}

/** Keeps wires built by a read begun at `readEpoch`; returns them as callers must use them. */
export function keepWire<W>(
  readCache: ReadCache | null | undefined,
  db: Db,
  readEpoch: number | null,
  product: Product,
  wire: W,
): W {
  const cache = readCache?.for(db);
  if (!cache || readEpoch === null) return wire;
  return cache.keep<CachedWire<W>>(db, readEpoch, wireKey(product.id), product.organizationId, {
    source: JSON.stringify(product),
    wire,
  }).wire;
}

export function beginCatalogRead(readCache: ReadCache | null | undefined, db: Db): number | null {
  return readCache?.for(db)?.beginRead() ?? null;
}
