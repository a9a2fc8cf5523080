import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { CustomerWire } from '../customers/schemas.js';
import type { DiscountBaseWire } from '../discounts/schemas.js';
import type { ProductPriceWire, ProductWire } from '../products/schemas.js';
import type { Subscription } from './repository.js';
import type { PendingUpdate } from './changes-repository.js';
import type {
  OrderSubscriptionWire,
  PendingSubscriptionUpdateWire,
  SubscriptionMeterWire,
  SubscriptionWire,
} from './schemas.js';

/** The period, trial and cancellation dates (customers' subscriptionPeriodFields) in every subscription shape. */
export function subscriptionPeriodWire(subscription: Subscription) {
  return {
    current_period_start: iso(subscription.currentPeriodStart),
    current_period_end: iso(subscription.currentPeriodEnd),
    trial_start: isoOrNull(subscription.trialStart),
    trial_end: isoOrNull(subscription.trialEnd),
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: isoOrNull(subscription.canceledAt),
    started_at: isoOrNull(subscription.startedAt),
    ends_at: isoOrNull(subscription.endsAt),
  };
}

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
    ...subscriptionPeriodWire(subscription),
    ended_at: isoOrNull(subscription.endedAt),
    pause_at_period_end: subscription.pauseAtPeriodEnd,
    paused_at: isoOrNull(subscription.pausedAt),
    resumes_at: isoOrNull(subscription.resumesAt),
    customer_id: subscription.customerId,
    product_id: subscription.productId,
    discount_id: subscription.discountId,
    checkout_id: subscription.checkoutId,
    seats: null,
    customer_cancellation_reason: subscription.customerCancellationReason,
    customer_cancellation_comment: subscription.customerCancellationComment,
  };
}

/** What a subscription embeds, when the caller already has it (a fulfilment that just wrote the rows). */
export interface SubscriptionEmbeds {
  customer: CustomerWire;
  product: ProductWire;
  discount: DiscountBaseWire | null;
  price: ProductPriceWire | null;
  /** The `next_period` plan change waiting for the cycle; absent means none. */
  pendingUpdate?: PendingUpdate | null;
  /** The product's metered prices (billed at each cycle on usage) and their period so far. */
  meteredPrices?: ProductPriceWire[];
  meters?: SubscriptionMeterWire[];
}

export function pendingUpdateWire(update: PendingUpdate): PendingSubscriptionUpdateWire {
  return {
    created_at: iso(update.createdAt),
    modified_at: isoOrNull(update.modifiedAt),
    id: update.id,
    applies_at: iso(update.appliesAt),
    product_id: update.productId,
    seats: null,
  };
}

export function subscriptionWire(subscription: Subscription, embeds: SubscriptionEmbeds): SubscriptionWire {
  return {
    ...orderSubscriptionWire(subscription),
    custom_field_data: subscription.customFieldData,
    customer: embeds.customer,
    product: embeds.product,
    discount: embeds.discount,
    prices: [...(embeds.price ? [embeds.price] : []), ...(embeds.meteredPrices ?? [])],
    meters: embeds.meters ?? [],
    pending_update: embeds.pendingUpdate ? pendingUpdateWire(embeds.pendingUpdate) : null,
  };
}
