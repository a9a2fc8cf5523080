import type { Db } from '../database/index.js';
import type { ProductLookup } from '../discounts/loaders.js';
import { discountsRepository } from '../discounts/repository.js';
import type { CheckoutLink } from './repository.js';
import type { CheckoutLinkWire } from './schemas.js';
import { checkoutLinkWire } from './wire.js';

/** Wires for several links with one product lookup and one discount lookup. */
export async function loadCheckoutLinkWires(
  db: Db,
  deps: { baseUrl: string; products: ProductLookup },
  links: CheckoutLink[],
): Promise<CheckoutLinkWire[]> {
  const productIds = [...new Set(links.flatMap((link) => link.productIds))];
  const discountIds = [...new Set(links.flatMap((link) => (link.discountId ? [link.discountId] : [])))];
  const products = new Map(
    (productIds.length > 0 ? await deps.products.byIds(db, productIds) : []).map((product) => [product.id, product]),
  );
  const discounts = new Map(
    (await discountsRepository(db).findByIds(discountIds)).map((discount) => [discount.id, discount]),
  );
  return links.map((link) =>
    checkoutLinkWire(deps.baseUrl, link, products, link.discountId ? (discounts.get(link.discountId) ?? null) : null),
  );
}
