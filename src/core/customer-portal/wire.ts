import { checkoutLinkProductWire } from '../checkout-links/wire.js';
import type { Db } from '../database/index.js';
import { organizationsRepository } from '../organizations/repository.js';
import { organizationWire } from '../organizations/merchant-service.js';
import type { Order } from '../orders/repository.js';
import { orderWires } from '../orders/wire.js';
import type { EmbedOptions } from '../products/embedded.js';
import { productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductWire } from '../products/schemas.js';
import type { Subscription } from '../subscriptions/repository.js';
import { subscriptionWires } from '../subscriptions/wire.js';
import type { CustomerOrderWire, CustomerOrganizationWire, CustomerProductWire, CustomerSubscriptionWire } from './schemas.js';

/** The selling organization as its customers see it (Polar's CustomerOrganization). */
async function customerOrganization(db: Db, organizationId: string, options: EmbedOptions): Promise<CustomerOrganizationWire> {
  const organization = await organizationsRepository(db, options.readCache).findMerchantView(organizationId);
  const wire = organizationWire(organization!);
  const portal = wire.customer_portal_settings;
  return {
    created_at: wire.created_at,
    modified_at: wire.modified_at,
    id: wire.id,
    name: wire.name,
    slug: wire.slug,
    avatar_url: wire.avatar_url,
    proration_behavior: wire.proration_behavior,
    allow_customer_updates: wire.allow_customer_updates,
    customer_portal_settings: {
      usage: { show: portal.usage.show },
      subscription: { update_seats: portal.subscription.update_seats, update_plan: portal.subscription.update_plan },
      customer: { allow_email_change: portal.customer.allow_email_change ?? true },
    },
  };
}

function customerProduct(product: ProductWire, organization: CustomerOrganizationWire): CustomerProductWire {
  // The checkout link's product view already shows benefits as customers see them; the merchant's metadata stays private.
  const { metadata: _metadata, ...rest } = checkoutLinkProductWire(product);
  return { ...rest, organization };
}

export async function customerOrderWires(db: Db, orders: readonly Order[], options: EmbedOptions): Promise<CustomerOrderWire[]> {
  if (orders.length === 0) return [];
  const organization = await customerOrganization(db, orders[0]!.organizationId, options);
  const full = await orderWires(db, orders, options);
  // The full order embeds the product as OrderProduct; the portal's has prices, benefits and media, so load it whole.
  const productIds = [...new Set(orders.map((order) => order.productId).filter((id): id is string => id !== null))];
  const products = new Map((await productWires(db, productIds.length ? await productsRepository(db, options.readCache).findByIds(productIds) : [], options)).map((p) => [p.id, p]));
  return full.map((order) => {
    const { metadata: _m, custom_field_data: _c, platform_fee_amount: _f, platform_fee_currency: _fc, customer: _cu, user_id: _u, discount: _d, product: _p, ...rest } = order;
    const product = order.product_id ? products.get(order.product_id) : undefined;
    return { ...rest, product: product ? customerProduct(product, organization) : null };
  });
}

export async function customerSubscriptionWires(db: Db, subscriptions: readonly Subscription[], options: EmbedOptions): Promise<CustomerSubscriptionWire[]> {
  if (subscriptions.length === 0) return [];
  const organization = await customerOrganization(db, subscriptions[0]!.organizationId, options);
  const full = await subscriptionWires(db, subscriptions, options);
  return full.map((subscription) => {
    const { metadata: _m, custom_field_data: _c, customer: _cu, discount: _d, product, ...rest } = subscription;
    return { ...rest, product: customerProduct(product, organization), meters: [], pending_update: null };
  });
}
