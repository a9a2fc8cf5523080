import { customersRepository, type Customer } from '../customers/repository.js';
import type { CustomerWire } from '../customers/schemas.js';
import { customerWire } from '../customers/wire.js';
import type { Db } from '../database/index.js';
import { discountsRepository } from '../discounts/repository.js';
import type { DiscountBaseWire } from '../discounts/schemas.js';
import { discountBaseWire } from '../discounts/wire.js';
import type { EmbedOptions } from '../products/embedded.js';
import { loadPriceMeters, priceWire, productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductPriceWire, ProductWire } from '../products/schemas.js';
import { subscriptionMeterWithMeter, subscriptionUsage } from '../meters/subscription-meters.js';
import { pendingUpdatesRepository } from './changes-repository.js';
import type { Subscription } from './repository.js';
import type { SubscriptionWire } from './schemas.js';
import { subscriptionWire } from './wire.js';

/**
 * What subscriptions and orders embed (customer, product, discount), loaded in one query per kind for a whole page
 * of rows, so a list costs the same handful of queries whatever its length. Orders sit above subscriptions and
 * load theirs here too.
 */
export interface Related {
  customers: Map<string, CustomerWire>;
  products: Map<string, ProductWire>;
  discounts: Map<string, DiscountBaseWire>;
}

/** `knownCustomers`: the customers' rows when the caller has read them already (each of `customerIds` among them). */
export async function loadRelated(
  db: Db,
  ids: { customerIds: Iterable<string>; productIds: Iterable<string | null>; discountIds: Iterable<string | null> },
  options: EmbedOptions,
  knownCustomers?: readonly Customer[],
): Promise<Related> {
  const customerIds = [...new Set(ids.customerIds)];
  const productIds = [...new Set([...ids.productIds].filter((id): id is string => id !== null))];
  const discountIds = [...new Set([...ids.discountIds].filter((id): id is string => id !== null))];
  // Deleted customers still show on their orders (Polar keeps `deleted_at` on the embedded customer).
  const customerRows = knownCustomers ?? (await customersRepository(db).findAnyByIds(customerIds));
  const products = productIds.length
    ? await productWires(db, await productsRepository(db, options.readCache).findByIds(productIds), options)
    : [];
  const discounts = discountIds.length ? await discountsRepository(db).findByIds(discountIds) : [];
  return {
    customers: new Map(customerRows.map((customer) => [customer.id, customerWire(customer)])),
    products: new Map(products.map((product) => [product.id, product])),
    discounts: new Map(discounts.map((discount) => [discount.id, discountBaseWire(discount)])),
  };
}

/** Subscriptions as the API and webhooks show them, with customer, product, discount and price embedded. */
export async function loadSubscriptionWires(
  db: Db,
  subscriptions: readonly Subscription[],
  options: EmbedOptions,
  related?: Related,
): Promise<SubscriptionWire[]> {
  const loaded =
    related ??
    (await loadRelated(
      db,
      {
        customerIds: subscriptions.map((s) => s.customerId),
        productIds: subscriptions.map((s) => s.productId),
        discountIds: subscriptions.map((s) => s.discountId),
      },
      options,
    ));
  const ownPrices = await productsRepository(db, options.readCache).findPrices(
    subscriptions.map((s) => s.productPriceId),
  );
  const usage = await subscriptionUsage(db, subscriptions, options.readCache);
  const meters = await loadPriceMeters(db, [...ownPrices, ...[...usage.values()].flatMap((entry) => entry.prices)]);
  const prices = new Map<string, ProductPriceWire>(ownPrices.map((price) => [price.id, priceWire(price, meters)]));
  const pending = await pendingUpdatesRepository(db).forSubscriptions(subscriptions.map((s) => s.id));
  return subscriptions.map((subscription) =>
    subscriptionWire(subscription, {
      meteredPrices: usage.get(subscription.id)?.prices.map((price) => priceWire(price, meters)),
      meters: usage.get(subscription.id)?.usage.map((line) => subscriptionMeterWithMeter(subscription, line)),
      pendingUpdate: pending.get(subscription.id) ?? null,
      customer: loaded.customers.get(subscription.customerId)!,
      product: loaded.products.get(subscription.productId)!,
      discount: subscription.discountId ? (loaded.discounts.get(subscription.discountId) ?? null) : null,
      price: prices.get(subscription.productPriceId) ?? null,
    }),
  );
}
