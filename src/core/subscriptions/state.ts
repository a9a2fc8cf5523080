import type { CustomerStateWire } from '../customers/schemas.js';
import type { ActiveSubscriptionsReader } from '../customers/state.js';
import { activeMetersOf } from '../meters/customer-meters.js';
import { subscriptionMeterWire, subscriptionUsage } from '../meters/subscription-meters.js';
import type { Db } from '../database/index.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { subscriptionsRepository, type Subscription } from './repository.js';
import { subscriptionPeriodWire } from './wire.js';

/** The statuses CustomerState counts as having a subscription. */
export const ACTIVE_STATUSES = ['active', 'trialing'] as const;

/**
 * A customer's active (or trialing) subscriptions as CustomerState lists them: the reader customers/state.ts is
 * handed (customers sit below subscriptions, so they cannot import it).
 */
async function readActiveSubscriptions(db: Db, customerId: string): Promise<CustomerStateWire['active_subscriptions']> {
  const subscriptions = await subscriptionsRepository(db).forCustomer(customerId, [...ACTIVE_STATUSES]);
  const usage = await subscriptionUsage(db, subscriptions);
  return subscriptions.map((subscription) =>
    stateSubscription(
      subscription,
      (usage.get(subscription.id)?.usage ?? []).map((line) => subscriptionMeterWire(subscription, line)),
    ),
  );
}

/**
 * The reader carries the customer's meters too (`active_meters`): every caller that announces a customer's state
 * passes this one reader, so each `customer.state_changed` carries them as GET …/state does.
 */
export const activeSubscriptionsOf: ActiveSubscriptionsReader = Object.assign(readActiveSubscriptions, {
  activeMeters: activeMetersOf,
});

/** One active (or trialing) subscription as CustomerState lists it, with its metered prices' period so far. */
export function stateSubscription(
  subscription: Subscription,
  meters: CustomerStateWire['active_subscriptions'][number]['meters'] = [],
): CustomerStateWire['active_subscriptions'][number] {
  return {
    id: subscription.id,
    created_at: iso(subscription.createdAt),
    modified_at: isoOrNull(subscription.modifiedAt),
    metadata: subscription.metadata,
    custom_field_data: subscription.customFieldData,
    status: subscription.status as 'active' | 'trialing',
    amount: subscription.amount,
    currency: subscription.currency,
    recurring_interval: subscription.recurringInterval,
    ...subscriptionPeriodWire(subscription),
    product_id: subscription.productId,
    discount_id: subscription.discountId,
    meters,
  };
}
