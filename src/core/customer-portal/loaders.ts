import type { Db } from '../database/index.js';
import { organizationsRepository } from '../organizations/repository.js';
import { organizationWire } from '../organizations/merchant-service.js';
import { loadOrderWires } from '../orders/loaders.js';
import type { Order } from '../orders/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import { loadSubscriptionWires } from '../subscriptions/loaders.js';
import type { Subscription } from '../subscriptions/repository.js';
import type { CustomerOrderWire, CustomerOrganizationWire, CustomerSubscriptionWire } from './schemas.js';
import { customerOrderWire, customerOrganizationWire, customerSubscriptionWire } from './wire.js';

async function loadCustomerOrganization(
  db: Db,
  organizationId: string,
  options: EmbedOptions,
): Promise<CustomerOrganizationWire> {
  const organization = await organizationsRepository(db, options.readCache).findMerchantView(organizationId);
  return customerOrganizationWire(organizationWire(organization!));
}

/** A customer's orders (all of one organization), each kind of embedded row read once for the page. */
export async function loadCustomerOrderWires(
  db: Db,
  orders: readonly Order[],
  options: EmbedOptions,
): Promise<CustomerOrderWire[]> {
  if (orders.length === 0) return [];
  const organization = await loadCustomerOrganization(db, orders[0]!.organizationId, options);
  const full = await loadOrderWires(db, orders, options);
  const productIds = [...new Set(orders.map((order) => order.productId).filter((id): id is string => id !== null))];
  const products = new Map(
    (
      await productWires(
        db,
        productIds.length ? await productsRepository(db, options.readCache).findByIds(productIds) : [],
        options,
      )
    ).map((p) => [p.id, p]),
  );
  return full.map((order) =>
    customerOrderWire(order, order.product_id ? products.get(order.product_id) : undefined, organization),
  );
}

/** A customer's subscriptions (all of one organization), each kind of embedded row read once for the page. */
export async function loadCustomerSubscriptionWires(
  db: Db,
  subscriptions: readonly Subscription[],
  options: EmbedOptions,
): Promise<CustomerSubscriptionWire[]> {
  if (subscriptions.length === 0) return [];
  const organization = await loadCustomerOrganization(db, subscriptions[0]!.organizationId, options);
  const full = await loadSubscriptionWires(db, subscriptions, options);
  return full.map((subscription) => customerSubscriptionWire(subscription, organization));
}
