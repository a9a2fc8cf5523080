import type { Db } from '../database/index.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { EmbedOptions } from '../products/embedded.js';
import { priceWire } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { Related } from '../orders/related.js';
import { loadRelated } from '../orders/related.js';
import type { CustomerWire } from '../customers/schemas.js';
import type { DiscountBaseWire } from '../discounts/schemas.js';
import type { ProductPriceWire, ProductWire } from '../products/schemas.js';
import type { Subscription } from './repository.js';
import type { OrderSubscriptionWire, SubscriptionWire } from './schemas.js';

export function orderSubscriptionWire(subscription: Subscription): OrderSubscriptionWire {
  return {
    metadata: subscription.metadata,
    created_at: iso(subscription.createdAt),
    modified_at: isoOrNull(subscription.modifiedAt),
    id: subscription.id,
    amount: subscription.amount,
    currency: subscription.currency,
    recurring_interval: subscription.recurringInterval as OrderSubscriptionWire['recurring_interval'],
    recurring_interval_count: subscription.recurringIntervalCount,
    status: subscription.status,
    current_period_start: iso(subscription.currentPeriodStart),
    current_period_end: iso(subscription.currentPeriodEnd),
    trial_start: isoOrNull(subscription.trialStart),
    trial_end: isoOrNull(subscription.trialEnd),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: isoOrNull(subscription.canceledAt),
    started_at: isoOrNull(subscription.startedAt),
    ends_at: isoOrNull(subscription.endsAt),
    ended_at: isoOrNull(subscription.endedAt),
    customer_id: subscription.customerId,
    product_id: subscription.productId,
    discount_id: subscription.discountId,
    checkout_id: subscription.checkoutId,
    seats: null,
    customer_cancellation_reason: subscription.customerCancellationReason,
    customer_cancellation_comment: subscription.customerCancellationComment,
  };
}

/** Subscriptions as the API and webhooks show them, with customer, product, discount and price embedded. */
export async function subscriptionWires(db: Db, subscriptions: readonly Subscription[], options: EmbedOptions, related?: Related): Promise<SubscriptionWire[]> {
  const loaded =
    related ??
    (await loadRelated(
      db,
      { customerIds: subscriptions.map((s) => s.customerId), productIds: subscriptions.map((s) => s.productId), discountIds: subscriptions.map((s) => s.discountId) },
      options,
    ));
  const repo = productsRepository(db, options.readCache);
  const prices = new Map<string, ProductPriceWire>();
  for (const id of new Set(subscriptions.map((s) => s.productPriceId))) {
    const price = await repo.findPrice(id);
    if (price) prices.set(id, priceWire(price));
  }
  return subscriptions.map((subscription) =>
    subscriptionWire(subscription, {
      customer: loaded.customers.get(subscription.customerId)!,
      product: loaded.products.get(subscription.productId)!,
      discount: subscription.discountId ? (loaded.discounts.get(subscription.discountId) ?? null) : null,
      price: prices.get(subscription.productPriceId) ?? null,
    }),
  );
}

/** What a subscription embeds, when the caller already has it (a fulfilment that just wrote the rows). */
export interface SubscriptionEmbeds {
  customer: CustomerWire;
  product: ProductWire;
  discount: DiscountBaseWire | null;
  price: ProductPriceWire | null;
}

export function subscriptionWire(subscription: Subscription, embeds: SubscriptionEmbeds): SubscriptionWire {
  return {
    ...orderSubscriptionWire(subscription),
    custom_field_data: subscription.customFieldData,
    customer: embeds.customer,
    product: embeds.product,
    discount: embeds.discount,
    prices: embeds.price ? [embeds.price] : [],
    meters: [],
    pending_update: null,
  };
}
