import type { Db } from '../database/index.js';
import { discountsRepository, type Discount } from '../discounts/repository.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { loadPriceMeters, priceWire, productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductPriceWire, ProductWire } from '../products/schemas.js';
import type { Checkout } from './repository.js';
import type { CheckoutPublicWire, CheckoutWire } from './schemas.js';
import { checkoutPublicWire, checkoutWire, type CheckoutEmbeds } from './wire.js';

export interface CheckoutUrls extends EmbedOptions {
  /** Where the hosted checkout page lives: `${baseUrl}/checkout/{client_secret}`. */
  baseUrl: string;
  /** The payment processor's name, stated in the wire's `payment_processor_metadata`. */
  processor?: string;
  /**
   * Discounts as one step of a request read them (its redemption count moves, so never across steps or requests):
   * a fulfilment renders the same discount for the order, the subscription, the checkout and the answer.
   */
  discounts?: Map<string, Discount | null>;
}

/** The discount, read once per `urls.discounts` memo. */
export async function discountOf(db: Db, id: string, urls: CheckoutUrls): Promise<Discount | null> {
  const memo = urls.discounts;
  if (memo?.has(id)) return memo.get(id)!;
  const discount = await discountsRepository(db).findById(id);
  memo?.set(id, discount);
  return discount;
}

async function archivedPriceWire(db: Db, id: string, urls: CheckoutUrls): Promise<ProductPriceWire | null> {
  const price = await productsRepository(db, urls.readCache).findPrice(id);
  return price ? priceWire(price, await loadPriceMeters(db, [price])) : null;
}

/** The rows a checkout embeds: products from the request's memo when it has them all, else in one read. */
async function loadEmbeds(db: Db, checkout: Checkout, urls: CheckoutUrls): Promise<CheckoutEmbeds> {
  const memo = urls.memo;
  const products =
    memo && checkout.productIds.every((id) => memo.has(id))
      ? checkout.productIds.map((id) => memo.get(id)!)
      : await productWires(db, await productsRepository(db, urls.readCache).findByIds(checkout.productIds), urls);
  const ordered = checkout.productIds
    .map((id) => products.find((product) => product.id === id))
    .filter((p): p is ProductWire => p !== undefined);
  const product = ordered.find((p) => p.id === checkout.productId) ?? null;
  // A live price is already in its product's wire; only one archived since the checkout opened is read on its own.
  const price =
    product?.prices.find((p) => p.id === checkout.productPriceId) ??
    (await archivedPriceWire(db, checkout.productPriceId, urls));
  const discount = checkout.discountId ? await discountOf(db, checkout.discountId, urls) : null;
  return { products: ordered, product, price, discount };
}

export async function loadCheckoutWire(db: Db, checkout: Checkout, urls: CheckoutUrls): Promise<CheckoutWire> {
  return checkoutWire(checkout, await loadEmbeds(db, checkout, urls), urls);
}

/** A page of checkouts: products, archived prices and discounts each read once for the whole page. */
export async function loadCheckoutWires(
  db: Db,
  checkouts: readonly Checkout[],
  urls: CheckoutUrls,
): Promise<CheckoutWire[]> {
  if (checkouts.length === 0) return [];
  const productIds = [...new Set(checkouts.flatMap((checkout) => checkout.productIds))];
  const products = new Map(
    (await productWires(db, await productsRepository(db, urls.readCache).findByIds(productIds), urls)).map(
      (product) => [product.id, product],
    ),
  );
  const parts = checkouts.map((checkout) => {
    const ordered = checkout.productIds.flatMap((id) => products.get(id) ?? []);
    const product = ordered.find((p) => p.id === checkout.productId) ?? null;
    return { ordered, product, livePrice: product?.prices.find((p) => p.id === checkout.productPriceId) ?? null };
  });
  const archivedIds = checkouts
    .filter((_, index) => parts[index]!.livePrice === null)
    .map((checkout) => checkout.productPriceId);
  const archivedPrices = await productsRepository(db, urls.readCache).findPrices(archivedIds);
  const archivedMeters = await loadPriceMeters(db, archivedPrices);
  const archived = new Map(archivedPrices.map((price) => [price.id, priceWire(price, archivedMeters)]));
  const discountIds = [...new Set(checkouts.flatMap((checkout) => (checkout.discountId ? [checkout.discountId] : [])))];
  const discounts = new Map(
    discountIds.length > 0
      ? (await discountsRepository(db).findByIds(discountIds)).map((discount) => [discount.id, discount])
      : [],
  );
  return checkouts.map((checkout, index) => {
    const { ordered, product, livePrice } = parts[index]!;
    const price = livePrice ?? archived.get(checkout.productPriceId) ?? null;
    const discount = checkout.discountId ? (discounts.get(checkout.discountId) ?? null) : null;
    return checkoutWire(checkout, { products: ordered, product, price, discount }, urls);
  });
}

/** The buyer's view: no merchant metadata, plus the selling organization. */
export async function loadCheckoutPublicWire(
  db: Db,
  checkout: Checkout,
  urls: CheckoutUrls,
): Promise<CheckoutPublicWire> {
  const organization = (await organizationsRepository(db, urls.readCache).findMerchantView(checkout.organizationId))!;
  return checkoutPublicWire(checkout, await loadEmbeds(db, checkout, urls), urls, organization);
}
