import { z } from 'zod';
import { addressInput, addressOutput } from '../customers/address.js';
import { discountBaseSchema } from '../discounts/schemas.js';
import { organizationProfileFields } from '../organizations/merchant-schemas.js';
import { datetime, listResource, metadataInput, metadataOutput } from '../polar-api/schemas.js';
import { productPriceSchema, productSchema } from '../products/schemas.js';

export const CHECKOUT_STATUSES = ['open', 'expired', 'confirmed', 'succeeded', 'failed'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** Custom field answers: keyed by field slug; values as Polar allows them (checked against the fields later). */
export const customFieldDataInput = z.record(
  z.string().min(1).max(250),
  z.union([z.string().max(2000), z.number().int(), z.boolean(), z.null()]),
);
export const customFieldDataOutput = z.record(
  z.string(),
  z.union([z.string(), z.number().int(), z.boolean(), z.null()]),
);

const email = z
  .string()
  .max(254)
  .pipe(z.email({ message: 'value is not a valid email address' }));
const url = z.url({ protocol: /^https?$/ }).max(2048);
const customerMetadataInput = z.record(
  z.string().min(1).max(40),
  z.union([z.string().min(1).max(500), z.number().int(), z.number(), z.boolean()]),
);

/** Fields a merchant, the buyer (public update) and the confirm call share. */
const buyerFields = {
  custom_field_data: customFieldDataInput.optional(),
  product_id: z.uuid().nullable().optional(),
  product_price_id: z.uuid().nullable().optional(),
  amount: z.number().int().min(0).max(99_999_999).nullable().optional(),
  is_business_customer: z.boolean().nullable().optional(),
  customer_name: z.string().max(256).nullable().optional(),
  customer_email: email.nullable().optional(),
  customer_billing_name: z.string().max(256).nullable().optional(),
  customer_billing_address: addressInput.nullable().optional(),
  customer_tax_id: z.string().max(64).nullable().optional(),
  locale: z.string().max(16).nullable().optional(),
};

const merchantFields = {
  metadata: metadataInput.optional(),
  discount_id: z.uuid().nullable().optional(),
  allow_discount_codes: z.boolean().optional(),
  require_billing_address: z.boolean().optional(),
  customer_ip_address: z.union([z.ipv4(), z.ipv6()]).nullable().optional(),
  customer_metadata: customerMetadataInput.optional(),
  success_url: url.nullable().optional(),
  return_url: url.nullable().optional(),
  embed_origin: z
    .url({ protocol: /^https?$/ })
    .max(512)
    .nullable()
    .optional(),
  // Accepted for the SDK's sake; trials and seats arrive with the subscriptions work.
  trial_interval: z.enum(['day', 'week', 'month', 'year']).nullable().optional(),
  trial_interval_count: z.number().int().min(1).max(1000).nullable().optional(),
  allow_trial: z.boolean().nullable().optional(),
  currency: z
    .string()
    .regex(/^[a-z]{3}$/)
    .nullable()
    .optional(),
};

/**
 * Seat-based pricing is not in Till (issue 17 leaves it out): a seat count is refused, naming its field, rather than
 * silently dropped. `null` (what an SDK sends for "no seats") passes.
 */
const unsupportedSeats = z
  .number()
  .int()
  .min(1)
  .nullable()
  .optional()
  .refine((value) => value === undefined || value === null, { message: 'Seat-based pricing is not supported.' });

/**
 * Creating a checkout (the SDK always sends `products`; Polar's older single-product and single-price forms are
 * accepted too).
 */
export const checkoutCreateSchema = z
  .strictObject({
    ...buyerFields,
    ...merchantFields,
    products: z.array(z.uuid()).min(1).max(20).optional(),
    // Polar's clients name Stripe; the configured processor (the sandbox by default) serves the request.
    payment_processor: z.enum(['stripe']).optional(),
    prices: z.record(z.string(), z.array(z.unknown())).nullable().optional(),
    customer_id: z.uuid().nullable().optional(),
    external_customer_id: z.string().min(1).max(256).nullable().optional(),
    subscription_id: z.uuid().nullable().optional(),
    seats: unsupportedSeats,
    min_seats: unsupportedSeats,
    max_seats: unsupportedSeats,
  })
  .meta({ id: 'CheckoutCreate' });

export const checkoutUpdateSchema = z
  .strictObject({ ...buyerFields, ...merchantFields, seats: unsupportedSeats })
  .meta({ id: 'CheckoutUpdate' });

/** What the customer may change on the checkout page, and send again when confirming. */
const publicUpdateFields = {
  ...buyerFields,
  seats: unsupportedSeats,
  payment_method_type: z.string().max(32).nullable().optional(),
  discount_code: z.string().max(256).nullable().optional(),
  allow_trial: z.boolean().nullable().optional(),
};

export const checkoutUpdatePublicSchema = z.strictObject(publicUpdateFields).meta({ id: 'CheckoutUpdatePublic' });

export const checkoutConfirmSchema = z
  .strictObject({
    ...publicUpdateFields,
    // The sandbox's test card, named by Stripe's test token (tok_visa, tok_chargeDeclined, …).
    confirmation_token_id: z.string().min(1).max(256).nullable().optional(),
  })
  .meta({ id: 'CheckoutConfirmStripe' });

export type CheckoutCreateInput = z.output<typeof checkoutCreateSchema>;
export type CheckoutUpdateInput = z.output<typeof checkoutUpdateSchema>;
export type CheckoutUpdatePublicInput = z.output<typeof checkoutUpdatePublicSchema>;
export type CheckoutConfirmInput = z.output<typeof checkoutConfirmSchema>;

const fieldMode = z.enum(['required', 'optional', 'disabled']);
const billingAddressFields = z
  .object({
    country: fieldMode,
    state: fieldMode,
    city: fieldMode,
    postal_code: fieldMode,
    line1: fieldMode,
    line2: fieldMode,
  })
  .meta({ id: 'CheckoutBillingAddressFields' });

const checkoutFields = {
  id: z.string(),
  created_at: datetime,
  modified_at: datetime.nullable(),
  custom_field_data: customFieldDataOutput,
  payment_processor: z.enum(['stripe']),
  status: z.enum(CHECKOUT_STATUSES),
  client_secret: z.string(),
  url: z.string(),
  expires_at: datetime,
  success_url: z.string(),
  return_url: z.string().nullable(),
  embed_origin: z.string().nullable(),
  amount: z.number().int(),
  seats: z.number().int().nullable(),
  min_seats: z.number().int().nullable(),
  max_seats: z.number().int().nullable(),
  discount_amount: z.number().int(),
  net_amount: z.number().int(),
  tax_amount: z.number().int().nullable(),
  tax_behavior: z.enum(['exclusive', 'inclusive']).nullable(),
  total_amount: z.number().int(),
  currency: z.string(),
  allow_trial: z.boolean().nullable(),
  active_trial_interval: z.string().nullable(),
  active_trial_interval_count: z.number().int().nullable(),
  trial_end: datetime.nullable(),
  organization_id: z.string(),
  product_id: z.string().nullable(),
  product_price_id: z.string().nullable(),
  discount_id: z.string().nullable(),
  allow_discount_codes: z.boolean(),
  require_billing_address: z.boolean(),
  is_discount_applicable: z.boolean(),
  is_free_product_price: z.boolean(),
  is_payment_required: z.boolean(),
  is_payment_setup_required: z.boolean(),
  is_payment_form_required: z.boolean(),
  customer_id: z.string().nullable(),
  is_business_customer: z.boolean(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_ip_address: z.string().nullable(),
  customer_billing_name: z.string().nullable(),
  customer_billing_address: addressOutput.nullable(),
  customer_tax_id: z.string().nullable(),
  locale: z.string().nullable(),
  payment_processor_metadata: z.record(z.string(), z.string()),
  billing_address_fields: billingAddressFields,
  products: z.array(productSchema),
  product: productSchema.nullable(),
  product_price: productPriceSchema.nullable(),
  prices: z.record(z.string(), z.array(productPriceSchema)).nullable(),
  discount: discountBaseSchema.nullable(),
  attached_custom_fields: z.array(z.unknown()).nullable(),
};

export const checkoutSchema = z
  .object({
    ...checkoutFields,
    trial_interval: z.string().nullable(),
    trial_interval_count: z.number().int().nullable(),
    metadata: metadataOutput,
    external_customer_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    customer_metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  })
  .meta({ id: 'Checkout' });

const checkoutOrganization = z.object({ ...organizationProfileFields }).meta({ id: 'CheckoutOrganization' });

export const checkoutPublicSchema = z
  .object({ ...checkoutFields, payment_method_type: z.string().nullable(), organization: checkoutOrganization })
  .meta({ id: 'CheckoutPublic' });
export const checkoutPublicConfirmedSchema = z
  .object({
    ...checkoutFields,
    payment_method_type: z.string().nullable(),
    organization: checkoutOrganization,
    customer_session_token: z.string().nullable(),
  })
  .meta({ id: 'CheckoutPublicConfirmed' });

export const checkoutListSchema = listResource(checkoutSchema, 'ListResource_Checkout_');

export type CheckoutWire = z.infer<typeof checkoutSchema>;
export type CheckoutPublicWire = z.infer<typeof checkoutPublicSchema>;
