import { z } from 'zod';
import { discountBaseSchema } from '../discounts/schemas.js';
import { datetime, listResource, metadataInput, metadataOutput } from '../polar-api/schemas.js';
import { productSchema, RECURRING_INTERVALS, trialResourceFields } from '../products/schemas.js';

/** Polar's checkout link wire shapes (2026-04 API; what `@polar-sh/sdk` 0.47 sends and validates). */

// No schema ids on these two: the products module already names TrialInterval, and Polar's payment processor enum
// has one member.
const trialInterval = z.enum(RECURRING_INTERVALS);
const paymentProcessor = z.literal('stripe');

/** http(s) only: the customer's browser is sent there. `{CHECKOUT_ID}` placeholders are kept as written. */
export const redirectUrlInput = z
  .string()
  .min(1)
  .max(2083)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'https:' || url.protocol === 'http:';
      } catch {
        return false;
      }
    },
    { message: 'Input should be a valid http or https URL' },
  );

const productIds = z.array(z.uuid()).min(1).max(100);
const optionalFields = {
  metadata: metadataInput.optional(),
  trial_interval: trialInterval.nullable().optional(),
  trial_interval_count: z.number().int().min(1).max(1000).nullable().optional(),
  label: z.string().max(256).nullable().optional(),
  discount_id: z.uuid().nullable().optional(),
  success_url: redirectUrlInput.nullable().optional(),
  return_url: redirectUrlInput.nullable().optional(),
};

/**
 * Polar's CheckoutLinkCreate is a union of three shapes that differ only in how products are named: `products`
 * (a list), or the deprecated `product_id` or `product_price_id`. One object with exactly one of them gives
 * field-level errors instead of a union's "invalid input".
 */
export const checkoutLinkCreateSchema = z
  .strictObject({
    ...optionalFields,
    payment_processor: paymentProcessor,
    allow_discount_codes: z.boolean().default(true),
    require_billing_address: z.boolean().default(false),
    products: productIds.optional(),
    product_id: z.uuid().optional(),
    product_price_id: z.uuid().optional(),
  })
  .superRefine((body, ctx) => {
    const given = (['products', 'product_id', 'product_price_id'] as const).filter(
      (field) => body[field] !== undefined,
    );
    if (given.length === 0)
      ctx.addIssue({ code: 'custom', path: ['products'], message: 'Field required', input: undefined });
    if (given.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [given[1]!],
        message: `Give only one of products, product_id and product_price_id`,
        input: body[given[1]!],
      });
  })
  .meta({ id: 'CheckoutLinkCreate' });

export const checkoutLinkUpdateSchema = z
  .strictObject({
    ...optionalFields,
    products: productIds.nullable().optional(),
    allow_discount_codes: z.boolean().nullable().optional(),
    require_billing_address: z.boolean().nullable().optional(),
  })
  .meta({ id: 'CheckoutLinkUpdate' });

export type CheckoutLinkCreateInput = z.output<typeof checkoutLinkCreateSchema>;
export type CheckoutLinkUpdateInput = z.output<typeof checkoutLinkUpdateSchema>;

export const benefitPublicSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    type: z.string(),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    is_deleted: z.boolean(),
    organization_id: z.string(),
  })
  .meta({ id: 'BenefitPublic' });

/** Polar's CheckoutLinkProduct: the product with its prices and media, and its benefits as customers see them. */
export const checkoutLinkProductSchema = productSchema
  .omit({ attached_custom_fields: true, benefits: true })
  .extend({ benefits: z.array(benefitPublicSchema) })
  .meta({ id: 'CheckoutLinkProduct' });

export const checkoutLinkSchema = z
  .object({
    ...trialResourceFields(trialInterval),
    metadata: metadataOutput,
    payment_processor: paymentProcessor,
    client_secret: z.string(),
    success_url: z.string().nullable(),
    return_url: z.string().nullable(),
    label: z.string().nullable(),
    allow_discount_codes: z.boolean(),
    require_billing_address: z.boolean(),
    discount_id: z.string().nullable(),
    // Seat-based pricing is not in Till; Polar answers null for links without preset seats.
    seats: z.number().int().nullable(),
    organization_id: z.string(),
    products: z.array(checkoutLinkProductSchema),
    discount: discountBaseSchema.nullable(),
    /** Where customers open the link: it starts a checkout and redirects there. */
    url: z.string(),
  })
  .meta({ id: 'CheckoutLink' });

export const checkoutLinkListSchema = listResource(checkoutLinkSchema, 'ListResource_CheckoutLink_');

export type CheckoutLinkWire = z.infer<typeof checkoutLinkSchema>;
export type CheckoutLinkProductWire = z.infer<typeof checkoutLinkProductSchema>;
