import type { Discount } from '../discounts/repository.js';
import { discountBaseWire } from '../discounts/wire.js';
import type { MerchantOrganization } from '../organizations/repository.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductPriceWire, ProductWire } from '../products/schemas.js';
import { billingAddressModes } from './billing-address.js';
import type { Checkout } from './repository.js';
import { activeTrial } from './trial.js';
import type { CheckoutPublicWire, CheckoutWire } from './schemas.js';

/** What a checkout embeds, read by loaders.ts: its products in the checkout's order, the chosen one and price, the discount. */
/** What every checkout wire states about the daemon: its public URL and the name of its payment processor. */
export interface WireBase {
  baseUrl: string;
  processor?: string;
}

export interface CheckoutEmbeds {
  products: ProductWire[];
  product: ProductWire | null;
  price: ProductPriceWire | null;
  discount: Discount | null;
}

type SharedWire = Omit<
  CheckoutWire,
  | 'trial_interval'
  | 'trial_interval_count'
  | 'metadata'
  | 'external_customer_id'
  | 'subscription_id'
  | 'customer_metadata'
>;

/** The fields the merchant view (Checkout) and the buyer's view (CheckoutPublic) share. */
function sharedWire(checkout: Checkout, embeds: CheckoutEmbeds, base: WireBase): SharedWire {
  const { baseUrl } = base;
  const { products: ordered, product, price, discount } = embeds;
  const trial = product
    ? activeTrial(checkout, {
        recurringInterval: product.recurring_interval,
        trialInterval: product.trial_interval,
        trialIntervalCount: product.trial_interval_count,
      })
    : null;
  const amountType = price?.amount_type ?? 'free';
  const isFree = amountType === 'free';
  const recurring = product?.is_recurring ?? false;
  const paymentRequired = checkout.totalAmount > 0;
  const setupRequired = recurring && !isFree && !paymentRequired;
  return {
    id: checkout.id,
    created_at: iso(checkout.createdAt),
    modified_at: isoOrNull(checkout.modifiedAt),
    custom_field_data: checkout.customFieldData,
    // Polar's SDK knows only "stripe"; the configured processor (the sandbox by default) serves it.
    payment_processor: 'stripe',
    status: checkout.status,
    client_secret: checkout.clientSecret,
    url: `${baseUrl}/checkout/${checkout.clientSecret}`,
    expires_at: iso(checkout.expiresAt),
    // Polar fills the {CHECKOUT_ID} placeholder in, so the merchant's page learns which checkout came back.
    success_url: (checkout.successUrl ?? `${baseUrl}/checkout/${checkout.clientSecret}/confirmation`).replaceAll(
      '{CHECKOUT_ID}',
      checkout.id,
    ),
    return_url: checkout.returnUrl,
    embed_origin: checkout.embedOrigin,
    amount: checkout.subtotalAmount,
    seats: null,
    min_seats: null,
    max_seats: null,
    discount_amount: checkout.discountAmount,
    net_amount: checkout.netAmount,
    tax_amount: checkout.taxAmount,
    tax_behavior: 'exclusive',
    total_amount: checkout.totalAmount,
    currency: checkout.currency,
    allow_trial: checkout.allowTrial,
    active_trial_interval: trial?.interval ?? null,
    active_trial_interval_count: trial?.count ?? null,
    trial_end: null,
    organization_id: checkout.organizationId,
    product_id: checkout.productId,
    product_price_id: checkout.productPriceId,
    discount_id: checkout.discountId,
    allow_discount_codes: checkout.allowDiscountCodes,
    require_billing_address: checkout.requireBillingAddress,
    is_discount_applicable: amountType === 'fixed' || amountType === 'custom',
    is_free_product_price: isFree,
    is_payment_required: paymentRequired,
    is_payment_setup_required: setupRequired,
    is_payment_form_required: paymentRequired || setupRequired,
    customer_id: checkout.customerId,
    is_business_customer: checkout.isBusinessCustomer,
    customer_name: checkout.customerName,
    customer_email: checkout.customerEmail,
    customer_ip_address: checkout.customerIpAddress,
    customer_billing_name: checkout.customerBillingName,
    customer_billing_address: checkout.customerBillingAddress,
    customer_tax_id: checkout.customerTaxId,
    locale: null,
    // Which processor really serves the checkout (Polar's field holds a processor's own client settings): a client
    // such as `till checkouts pay` tells the sandbox, which takes test cards, from a processor that moves money.
    payment_processor_metadata: base.processor ? { processor: base.processor } : {},
    billing_address_fields: billingAddressModes(checkout, paymentRequired || setupRequired),
    products: ordered,
    product,
    product_price: price ?? null,
    prices: Object.fromEntries(ordered.map((p) => [p.id, p.prices])),
    discount: discount ? discountBaseWire(discount) : null,
    attached_custom_fields: product?.attached_custom_fields ?? [],
  };
}

export function checkoutWire(checkout: Checkout, embeds: CheckoutEmbeds, base: WireBase): CheckoutWire {
  return {
    ...sharedWire(checkout, embeds, base),
    trial_interval: checkout.trialInterval,
    trial_interval_count: checkout.trialIntervalCount,
    metadata: checkout.metadata,
    external_customer_id: checkout.externalCustomerId,
    subscription_id: checkout.subscriptionId,
    customer_metadata: checkout.customerMetadata,
  };
}

/** The buyer's view: no merchant metadata, plus the selling organization. */
export function checkoutPublicWire(
  checkout: Checkout,
  embeds: CheckoutEmbeds,
  base: WireBase,
  organization: MerchantOrganization,
): CheckoutPublicWire {
  const settings = organization.subscriptionSettings as {
    proration_behavior?: 'invoice' | 'prorate' | 'next_period';
    allow_customer_updates?: boolean;
  };
  return {
    ...sharedWire(checkout, embeds, base),
    payment_method_type: null,
    organization: {
      created_at: iso(organization.createdAt),
      modified_at: isoOrNull(organization.modifiedAt),
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      avatar_url: organization.avatarUrl,
      proration_behavior: settings.proration_behavior ?? 'prorate',
      allow_customer_updates: settings.allow_customer_updates ?? true,
    },
  };
}
