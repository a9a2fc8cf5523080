import type { CustomerStateWire } from '../customers/schemas.js';
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
export async function activeSubscriptionsOf(
  db: Db,
  customerId: string,
): Promise<CustomerStateWire['active_subscriptions']> {
  return (await subscriptionsRepository(db).forCustomer(customerId, [...ACTIVE_STATUSES])).map(stateSubscription);
}

/** One active (or trialing) subscription as CustomerState lists it. */
export function stateSubscription(subscription: Subscription): CustomerStateWire['active_subscriptions'][number] {
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
    // Metered prices do not exist yet, so no subscription has meters.
    meters: [],
  };
}
