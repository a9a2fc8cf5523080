import type { Discount } from '../discounts/repository.js';
import { discountBaseWire } from '../discounts/wire.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductWire } from '../products/schemas.js';
import type { CheckoutLink } from './repository.js';
import type { CheckoutLinkProductWire, CheckoutLinkWire } from './schemas.js';

/** Polar's public redirect route: opening it starts a checkout for the link. */
export function checkoutLinkUrl(baseUrl: string, clientSecret: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/checkout-links/${clientSecret}/redirect`;
}

/** A product as a checkout link shows it: its benefits as customers see them (BenefitPublic), no custom fields. */
export function checkoutLinkProductWire(product: ProductWire): CheckoutLinkProductWire {
  const { attached_custom_fields: _fields, benefits, ...rest } = product;
  return {
    ...rest,
    benefits: benefits.map((benefit) => ({
      id: benefit.id,
      created_at: benefit.created_at,
      modified_at: benefit.modified_at,
      type: benefit.type,
      description: benefit.description,
      selectable: benefit.selectable,
      deletable: benefit.deletable,
      is_deleted: benefit.is_deleted,
      organization_id: benefit.organization_id,
    })),
  };
}

export function checkoutLinkWire(
  baseUrl: string,
  link: CheckoutLink,
  products: Map<string, ProductWire>,
  discount: Discount | null,
): CheckoutLinkWire {
  return {
    id: link.id,
    created_at: iso(link.createdAt),
    modified_at: isoOrNull(link.modifiedAt),
    trial_interval: link.trialInterval,
    trial_interval_count: link.trialIntervalCount,
    metadata: link.metadata,
    payment_processor: link.paymentProcessor,
    client_secret: link.clientSecret,
    success_url: link.successUrl,
    return_url: link.returnUrl,
    label: link.label,
    allow_discount_codes: link.allowDiscountCodes,
    require_billing_address: link.requireBillingAddress,
    discount_id: discount ? link.discountId : null,
    seats: null,
    organization_id: link.organizationId,
    products: link.productIds.flatMap((id) => {
      const product = products.get(id);
      return product ? [checkoutLinkProductWire(product)] : [];
    }),
    discount: discount ? discountBaseWire(discount) : null,
    url: checkoutLinkUrl(baseUrl, link.clientSecret),
  };
}
