import { z } from 'zod';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';
import { productPriceCreateSchema, productPriceSchema, productPriceUpdateItemSchema } from './price-schemas.js';
import { embeddedSchemas } from './embedded.js';

export * from './price-schemas.js';

/** Products as Polar's API shows and takes them (Product, ProductCreate, ProductUpdate; 2026-04 and SDK 0.47). */

export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];
export const VISIBILITIES = ['draft', 'private', 'public'] as const;

const recurringInterval = z.enum(RECURRING_INTERVALS).meta({ id: 'SubscriptionRecurringInterval' });
const trialInterval = z.enum(RECURRING_INTERVALS).meta({ id: 'TrialInterval' });
const visibility = z.enum(VISIBILITIES).meta({ id: 'ProductVisibility' });
const name = z.string().min(3).max(64);
const description = z.string().max(10_000).nullable().optional();
const intervalCount = z.number().int().min(1).max(999);
const trialCount = z.number().int().min(1).max(1000);
const fileIds = z.array(z.uuid()).max(50);

export const attachedCustomFieldCreateSchema = z
  .strictObject({ custom_field_id: z.uuid(), required: z.boolean() })
  .meta({ id: 'AttachedCustomFieldCreate' });

const createShared = {
  metadata: metadataInput.optional(),
  name,
  description,
  visibility: visibility.default('public'),
  prices: z.array(productPriceCreateSchema).min(1).max(50),
  medias: fileIds.nullable().optional(),
  attached_custom_fields: z.array(attachedCustomFieldCreateSchema).max(50).optional(),
  organization_id: organizationIdInput,
};

/**
 * Polar's ProductCreate is a union told apart by `recurring_interval`: null or absent makes a one-time product.
 * One object with the recurring fields optional gives field-level errors instead of a union's "invalid input".
 */
export const productCreateSchema = z
  .strictObject({
    ...createShared,
    recurring_interval: recurringInterval.nullable().optional(),
    recurring_interval_count: intervalCount.nullable().optional(),
    trial_interval: trialInterval.nullable().optional(),
    trial_interval_count: trialCount.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.recurring_interval) return;
    for (const field of ['recurring_interval_count', 'trial_interval', 'trial_interval_count'] as const) {
      if (body[field] !== undefined && body[field] !== null) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is only for recurring products; set recurring_interval too`,
        });
      }
    }
  })
  .meta({ id: 'ProductCreate' });

export type ProductCreateInput = z.output<typeof productCreateSchema>;

export const productUpdateSchema = z
  .strictObject({
    metadata: metadataInput.optional(),
    name: name.nullable().optional(),
    description,
    recurring_interval: recurringInterval.nullable().optional(),
    recurring_interval_count: intervalCount.nullable().optional(),
    trial_interval: trialInterval.nullable().optional(),
    trial_interval_count: trialCount.nullable().optional(),
    is_archived: z.boolean().nullable().optional(),
    visibility: visibility.nullable().optional(),
    prices: z.array(productPriceUpdateItemSchema).max(50).nullable().optional(),
    medias: fileIds.nullable().optional(),
    attached_custom_fields: z.array(attachedCustomFieldCreateSchema).max(50).nullable().optional(),
  })
  .meta({ id: 'ProductUpdate' });

export type ProductUpdateInput = z.output<typeof productUpdateSchema>;

export const productBenefitsUpdateSchema = z
  .strictObject({ benefits: z.array(z.uuid()).max(100) })
  .meta({ id: 'ProductBenefitsUpdate' });

/**
 * The leading fields of Polar's outputs that carry a trial configuration (Product, CheckoutLink): id, timestamps and
 * the trial. The interval's enum is passed in: Product's is the named TrialInterval, CheckoutLink's is inline.
 */
export function trialResourceFields<Interval extends z.ZodType>(interval: Interval) {
  return {
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    trial_interval: interval.nullable(),
    trial_interval_count: z.number().int().nullable(),
  };
}

export const productSchema = z
  .object({
    ...trialResourceFields(trialInterval),
    name: z.string(),
    description: z.string().nullable(),
    visibility,
    recurring_interval: recurringInterval.nullable(),
    recurring_interval_count: z.number().int().nullable(),
    // Polar 2026-04 bills metered prices on their own interval; Till bills them with the subscription, so null.
    meter_interval: recurringInterval.nullable(),
    meter_interval_count: z.number().int().nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.string(),
    metadata: metadataOutput,
    prices: z.array(productPriceSchema),
    benefits: z.array(embeddedSchemas.benefit),
    medias: z.array(embeddedSchemas.media),
    attached_custom_fields: z.array(embeddedSchemas.attachedCustomField),
  })
  .meta({ id: 'Product' });

export type ProductWire = z.infer<typeof productSchema>;

export const productListSchema = listResource(productSchema, 'ListResource_Product_');
