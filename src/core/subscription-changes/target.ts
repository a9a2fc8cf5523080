import type { ReadCache } from '../cache/read-cache.js';
import { discountRule } from '../checkouts/pricing.js';
import type { Db } from '../database/index.js';
import { discountsRepository } from '../discounts/repository.js';
import { priceCart } from '../kernel/money.js';
import { fieldError } from '../polar-api/errors.js';
import { findProduct, type Product, type ProductPrice } from '../products/read.js';
import type { Subscription } from '../subscriptions/repository.js';

/** The plan a subscription moves to: the product, its price in the subscription's currency, and what it bills. */
export interface PlanTarget {
  product: Product;
  price: ProductPrice;
  /** What one period of the new plan bills, after the subscription's discount when it still applies. */
  amount: number;
  /** The subscription's discount if it applies to the new product, else null (it is dropped). */
  discountId: string | null;
}

const LOC = ['body', 'product_id'];

/**
 * Checks the product a subscription may move to (Polar's update_product rules): the same organization, recurring,
 * not archived, another product than today's, with a fixed or free price in the subscription's currency.
 */
export async function resolveTarget(
  db: Db,
  readCache: ReadCache,
  subscription: Subscription,
  productId: string,
): Promise<PlanTarget> {
  const product = await findProduct(db, productId, readCache);
  if (!product || product.organizationId !== subscription.organizationId)
    throw fieldError(LOC, 'Product does not exist.');
  if (product.isArchived) throw fieldError(LOC, 'Product is archived.');
  if (!product.recurringInterval) throw fieldError(LOC, 'Product is not recurring.');
  if (product.id === subscription.productId) throw fieldError(LOC, 'The subscription is already on this product.');
  const price = product.prices.find(
    (p) => p.priceCurrency === subscription.currency && (p.amountType === 'fixed' || p.amountType === 'free'),
  );
  if (!price)
    throw fieldError(
      LOC,
      `Product has no fixed or free price in the subscription's currency (${subscription.currency}).`,
    );
  return planOf(db, subscription, product, price);
}

/** What the subscription would bill on this product and price, its discount kept only where it applies. */
export async function planOf(
  db: Db,
  subscription: Subscription,
  product: Product,
  price: ProductPrice,
): Promise<PlanTarget> {
  const base = price.amountType === 'fixed' ? (price.priceAmount ?? 0) : 0;
  const discount = subscription.discountId ? await discountsRepository(db).findById(subscription.discountId) : null;
  const applies = !!discount && (discount.productIds.length === 0 || discount.productIds.includes(product.id));
  const amount = applies
    ? priceCart([{ amount: base, taxBasisPoints: 0 }], discountRule(discount, subscription.currency)).net_amount
    : base;
  return { product, price, amount, discountId: applies ? discount.id : null };
}

/** The subscription on its new plan (its period is the caller's business). */
export function onPlan(subscription: Subscription, target: PlanTarget, at: Date): Subscription {
  return {
    ...subscription,
    productId: target.product.id,
    productPriceId: target.price.id,
    amount: target.amount,
    discountId: target.discountId,
    recurringInterval: target.product.recurringInterval!,
    recurringIntervalCount: target.product.recurringIntervalCount ?? 1,
    modifiedAt: at,
  };
}

export function changesInterval(subscription: Subscription, target: Pick<PlanTarget, 'product'>): boolean {
  return (
    subscription.recurringInterval !== target.product.recurringInterval ||
    subscription.recurringIntervalCount !== (target.product.recurringIntervalCount ?? 1)
  );
}
