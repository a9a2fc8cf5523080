import { z } from 'zod';
import { customerSchema, subscriptionPeriodFields } from '../customers/schemas.js';
import { discountBaseSchema } from '../discounts/schemas.js';
import { datetime, listResource, metadataOutput } from '../polar-api/schemas.js';
import { meterSchema } from '../meters/schemas.js';
import { productPriceSchema, productSchema } from '../products/schemas.js';

import { SUBSCRIPTION_STATUSES } from './types.js';

export { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './types.js';
export const CANCELLATION_REASONS = [
  'customer_service',
  'low_quality',
  'missing_features',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
  'other',
] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

const customFieldData = z.record(z.string(), z.union([z.string(), z.number().int(), z.boolean(), z.null()]));

/** The subscription's own fields: what an order embeds (Polar's OrderSubscription). */
export const subscriptionBaseFields = {
  metadata: metadataOutput,
  created_at: datetime,
  modified_at: datetime.nullable(),
  id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  recurring_interval: z.enum(['day', 'week', 'month', 'year']),
  recurring_interval_count: z.number().int(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  ...subscriptionPeriodFields,
  ended_at: datetime.nullable(),
  pause_at_period_end: z.boolean(),
  paused_at: datetime.nullable(),
  resumes_at: datetime.nullable(),
  customer_id: z.string(),
  product_id: z.string(),
  discount_id: z.string().nullable(),
  checkout_id: z.string().nullable(),
  seats: z.number().int().nullable(),
  customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullable(),
  customer_cancellation_comment: z.string().nullable(),
};

/** Polar's PendingSubscriptionUpdate: a `next_period` plan change the cycle applies at `applies_at`. */
export const pendingSubscriptionUpdateSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    applies_at: datetime,
    product_id: z.string().nullable(),
    seats: z.number().int().nullable(),
  })
  .meta({ id: 'PendingSubscriptionUpdate' });
export type PendingSubscriptionUpdateWire = z.infer<typeof pendingSubscriptionUpdateSchema>;

export const orderSubscriptionSchema = z.object(subscriptionBaseFields).meta({ id: 'OrderSubscription' });

/** A metered price's period so far (Polar's SubscriptionMeter): units since the last cycle, credits, amount due. */
export const subscriptionMeterSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    amount: z.number().int(),
    meter_id: z.string(),
    meter: meterSchema,
  })
  .meta({ id: 'SubscriptionMeter' });
export type SubscriptionMeterWire = z.infer<typeof subscriptionMeterSchema>;

export const subscriptionSchema = z
  .object({
    ...subscriptionBaseFields,
    custom_field_data: customFieldData,
    customer: customerSchema,
    product: productSchema,
    discount: discountBaseSchema.nullable(),
    prices: z.array(productPriceSchema),
    meters: z.array(subscriptionMeterSchema),
    pending_update: pendingSubscriptionUpdateSchema.nullable(),
  })
  .meta({ id: 'Subscription' });

export const subscriptionListSchema = listResource(subscriptionSchema, 'ListResource_Subscription_');

export type SubscriptionWire = z.infer<typeof subscriptionSchema>;
export type OrderSubscriptionWire = z.infer<typeof orderSubscriptionSchema>;
