import { checkoutLinkProductWire } from '../checkout-links/wire.js';
import type { OrderWire } from '../orders/schemas.js';
import type { OrganizationWire } from '../organizations/merchant-schemas.js';
import type { ProductWire } from '../products/schemas.js';
import type { SubscriptionWire } from '../subscriptions/schemas.js';
import type {
  CustomerOrderWire,
  CustomerOrganizationWire,
  CustomerProductWire,
  CustomerSubscriptionWire,
} from './schemas.js';

/** The selling organization as its customers see it (Polar's CustomerOrganization). */
export function customerOrganizationWire(wire: OrganizationWire): CustomerOrganizationWire {
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

/**
 * An order as its customer sees it. The full order embeds the product as OrderProduct; the portal's has prices,
 * benefits and media, so it takes the whole product wire.
 */
export function customerOrderWire(
  order: OrderWire,
  product: ProductWire | undefined,
  organization: CustomerOrganizationWire,
): CustomerOrderWire {
  const {
    metadata: _m,
    custom_field_data: _c,
    platform_fee_amount: _f,
    platform_fee_currency: _fc,
    customer: _cu,
    user_id: _u,
    discount: _d,
    product: _p,
    ...rest
  } = order;
  return { ...rest, product: product ? customerProduct(product, organization) : null };
}

export function customerSubscriptionWire(
  subscription: SubscriptionWire,
  organization: CustomerOrganizationWire,
): CustomerSubscriptionWire {
  const { metadata: _m, custom_field_data: _c, customer: _cu, discount: _d, product, meters, ...rest } = subscription;
  return {
    ...rest,
    product: customerProduct(product, organization),
    // CustomerSubscriptionMeter: the meter named, not described.
    meters: meters.map(({ meter, ...figures }) => ({
      ...figures,
      meter: { id: meter.id, created_at: meter.created_at, modified_at: meter.modified_at, name: meter.name },
    })),
  };
}
