import type { Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { Discount } from '../discounts/repository.js';
import { discountsRepository } from '../discounts/repository.js';
import type { Product } from '../products/repository.js';
import { productsRepository } from '../products/repository.js';
import type { CheckoutLink } from './repository.js';
import { checkoutLinksRepository } from './repository.js';

export interface ResolvedCheckoutLink {
  link: CheckoutLink;
  /** The link's products still on sale (not archived), in the link's order; never empty. */
  products: Product[];
  /** The link's preset discount if it still exists. Whether it applies (dates, limit, products) is the checkout's call. */
  discount: Discount | null;
}

/**
 * What opening a checkout link starts a checkout from. Null when the secret names no live link, or when none of the
 * link's products is on sale any more: both are a 404 to the customer, as in Polar.
 */
export async function resolveForCheckout(
  db: Db,
  clientSecret: string,
  readCache: ReadCache | null | undefined,
): Promise<ResolvedCheckoutLink | null> {
  const link = await checkoutLinksRepository(db).findByClientSecret(clientSecret);
  if (!link) return null;
  const byId = new Map(
    (await productsRepository(db, readCache).findByIds(link.productIds)).map((product) => [product.id, product]),
  );
  const products = link.productIds.flatMap((id) => {
    const product = byId.get(id);
    return product && !product.isArchived ? [product] : [];
  });
  if (products.length === 0) return null;
  const discount = link.discountId ? await discountsRepository(db).findById(link.discountId) : null;
  return { link, products, discount };
}
