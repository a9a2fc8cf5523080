import { z } from 'zod';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { CANCELLATION_REASONS, SUBSCRIPTION_STATUSES } from './schemas.js';

/** What the subscription routes take. Query booleans arrive as text (`?active=true`). */
export const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

export const subscriptionListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string()).optional(),
  discount_id: uuidFilter().optional(),
  active: queryBoolean.optional(),
  status: repeated(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  cancel_at_period_end: queryBoolean.optional(),
  customer_cancellation_reason: repeated(z.enum(CANCELLATION_REASONS)).optional(),
  ...pageQuery,
  sorting: sortingQuery(
    ['started_at', 'current_period_end', 'ended_at', 'ends_at', 'amount', 'status'],
    ['-started_at'],
  ),
});
export type SubscriptionListQuery = z.output<typeof subscriptionListQuery>;

const reason = z.enum(CANCELLATION_REASONS).nullable().optional();
const comment = z.string().max(10_000).nullable().optional();

/** Polar's SubscriptionCancel: `true` cancels at the period end, `false` uncancels. */
export const subscriptionCancelSchema = z
  .strictObject({
    cancel_at_period_end: z.boolean(),
    customer_cancellation_reason: reason,
    customer_cancellation_comment: comment,
  })
  .meta({ id: 'SubscriptionCancel' });

/** Polar's SubscriptionRevoke: ends the subscription now (as DELETE does). */
export const subscriptionRevokeSchema = z
  .strictObject({
    revoke: z.literal(true),
    customer_cancellation_reason: reason,
    customer_cancellation_comment: comment,
  })
  .meta({ id: 'SubscriptionRevoke' });

/** Polar's SubscriptionUpdateTrial: a new trial end (extends or adds a trial), or `"now"` to end it and bill. */
export const subscriptionUpdateTrialSchema = z
  .strictObject({ trial_end: z.union([z.iso.datetime({ offset: true }), z.literal('now')]) })
  .meta({ id: 'SubscriptionUpdateTrial' });

/** Polar's proration behaviours without the preview-only `reset`. */
export const PRORATION_BEHAVIORS = ['invoice', 'prorate', 'next_period'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

/** Polar's SubscriptionUpdateProduct: a change of plan, billed as `proration_behavior` says (else the org's default). */
export const subscriptionUpdateProductSchema = z
  .strictObject({
    product_id: z.uuid(),
    proration_behavior: z.enum(PRORATION_BEHAVIORS).nullable().optional(),
  })
  .meta({ id: 'SubscriptionUpdateProduct' });

const resumesAt = z.iso.datetime({ offset: true }).nullable().optional();

/**
 * Polar's SubscriptionPause. `true` pauses when the period ends; `false` takes back a pause set for the period end,
 * and on a subscription with none pauses it now (Polar's schema has no other way to say "now").
 */
export const subscriptionPauseSchema = z
  .strictObject({ pause_at_period_end: z.boolean(), resumes_at: resumesAt })
  .meta({ id: 'SubscriptionPause' });

/** Polar's SubscriptionResume: a paused subscription resumes now, starting a new period that is charged at once. */
export const subscriptionResumeSchema = z.strictObject({ resume: z.literal(true) }).meta({ id: 'SubscriptionResume' });

/** Polar's SubscriptionUpdateClear: takes back a pending `next_period` change. */
export const subscriptionUpdateClearSchema = z
  .strictObject({ pending_update: z.null() })
  .meta({ id: 'SubscriptionUpdateClear' });

/** The changes of plan and pauses (subscription-changes/), as opposed to the cancellations of lifecycle.ts. */
export type SubscriptionChangeInput =
  | z.output<typeof subscriptionUpdateProductSchema>
  | z.output<typeof subscriptionPauseSchema>
  | z.output<typeof subscriptionResumeSchema>
  | z.output<typeof subscriptionUpdateClearSchema>;

/**
 * The variants of Polar's SubscriptionUpdate that Till implements. Discount, seats and billing period changes
 * are other variants of the union; sending one is a 422 until they exist.
 */
export const subscriptionUpdateSchema = z
  .union([
    subscriptionCancelSchema,
    subscriptionRevokeSchema,
    subscriptionUpdateProductSchema,
    subscriptionPauseSchema,
    subscriptionResumeSchema,
    subscriptionUpdateClearSchema,
    subscriptionUpdateTrialSchema,
  ])
  .meta({ id: 'SubscriptionUpdate' });
export type SubscriptionUpdateInput = z.output<typeof subscriptionUpdateSchema>;
export type SubscriptionCancellationInput = Exclude<SubscriptionUpdateInput, SubscriptionChangeInput>;

/** Whether a PATCH body is a change of plan or a pause (subscription-changes/) rather than a cancellation. */
export function isSubscriptionChange(input: SubscriptionUpdateInput): input is SubscriptionChangeInput {
  return 'product_id' in input || 'pause_at_period_end' in input || 'resume' in input || 'pending_update' in input;
}

/** The customer portal's CustomerSubscriptionCancel (note the shorter field names). */
export const customerSubscriptionCancelSchema = z
  .strictObject({
    cancel_at_period_end: z.boolean().nullable().optional(),
    cancellation_reason: reason,
    cancellation_comment: comment,
  })
  .meta({ id: 'CustomerSubscriptionCancel' });
export type CustomerSubscriptionCancelInput = z.output<typeof customerSubscriptionCancelSchema>;

/** The portal's CustomerSubscriptionUpdateProduct: the organization's default proration applies. */
export const customerSubscriptionUpdateProductSchema = z
  .strictObject({ product_id: z.uuid() })
  .meta({ id: 'CustomerSubscriptionUpdateProduct' });

/** The portal's CustomerSubscriptionUpdate: the variants Till implements (not seats). */
export const customerSubscriptionUpdateSchema = z
  .union([
    customerSubscriptionCancelSchema,
    customerSubscriptionUpdateProductSchema,
    subscriptionPauseSchema.meta({ id: 'CustomerSubscriptionPause' }),
    subscriptionResumeSchema.meta({ id: 'CustomerSubscriptionResume' }),
    subscriptionUpdateClearSchema.meta({ id: 'CustomerSubscriptionUpdateClear' }),
  ])
  .meta({ id: 'CustomerSubscriptionUpdate' });
export type CustomerSubscriptionUpdateInput = z.output<typeof customerSubscriptionUpdateSchema>;
export type CustomerSubscriptionChangeInput =
  | z.output<typeof customerSubscriptionUpdateProductSchema>
  | z.output<typeof subscriptionPauseSchema>
  | z.output<typeof subscriptionResumeSchema>
  | z.output<typeof subscriptionUpdateClearSchema>;
