import type { Db } from '../database/index.js';
import type { EmbedOptions } from '../products/embedded.js';
import { loadRelated, type Related } from '../subscriptions/loaders.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { orderSubscriptionWire } from '../subscriptions/wire.js';
import type { Order, OrderItem } from './repository.js';
import { ordersRepository } from './repository.js';
import type { OrderWire } from './schemas.js';
import { orderWire } from './wire.js';

/**
 * What a caller already holds of what the orders embed (a batch of renewals has just written the items and the
 * subscriptions, and loaded the customers and products for the subscriptions' own wires): each part given is not
 * read again. `items` must hold every order's items (an order without any maps to an empty list), `subscriptions`
 * every order's subscription as it now stands.
 */
export interface KnownOrderParts {
  related?: Related;
  items?: ReadonlyMap<string, OrderItem[]>;
  subscriptions?: readonly Subscription[];
}

/**
 * Orders as the API and webhooks show them: items, customer, product, discount and subscription embedded, each
 * kind read in one query for the whole page.
 */
export async function loadOrderWires(
  db: Db,
  orders: readonly Order[],
  options: EmbedOptions,
  known: KnownOrderParts = {},
): Promise<OrderWire[]> {
  const related =
    known.related ??
    (await loadRelated(
      db,
      {
        customerIds: orders.map((o) => o.customerId),
        productIds: orders.map((o) => o.productId),
        discountIds: orders.map((o) => o.discountId),
      },
      options,
    ));
  const items = known.items ?? (await ordersRepository(db).itemsOf(orders.map((o) => o.id)));
  const subscriptionIds = orders.map((o) => o.subscriptionId).filter((id): id is string => id !== null);
  const subscriptions = new Map(
    (known.subscriptions ?? (await subscriptionsRepository(db).findByIds(subscriptionIds))).map((subscription) => [
      subscription.id,
      orderSubscriptionWire(subscription),
    ]),
  );
  return orders.map((order) =>
    orderWire(order, {
      customer: related.customers.get(order.customerId)!,
      product: order.productId ? (related.products.get(order.productId) ?? null) : null,
      discount: order.discountId ? (related.discounts.get(order.discountId) ?? null) : null,
      subscription: order.subscriptionId ? (subscriptions.get(order.subscriptionId) ?? null) : null,
      items: items.get(order.id) ?? [],
    }),
  );
}
