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

/**
 * The variants of Polar's SubscriptionUpdate that Till implements. Product, discount, seats and billing period
 * changes are other variants of the union; sending one is a 422 until they exist.
 */
export const subscriptionUpdateSchema = z
  .union([subscriptionCancelSchema, subscriptionRevokeSchema, subscriptionUpdateTrialSchema])
  .meta({ id: 'SubscriptionUpdate' });
export type SubscriptionUpdateInput = z.output<typeof subscriptionUpdateSchema>;

/** The customer portal's CustomerSubscriptionCancel (note the shorter field names). */
export const customerSubscriptionCancelSchema = z
  .strictObject({
    cancel_at_period_end: z.boolean().nullable().optional(),
    cancellation_reason: reason,
    cancellation_comment: comment,
  })
  .meta({ id: 'CustomerSubscriptionCancel' });
export type CustomerSubscriptionCancelInput = z.output<typeof customerSubscriptionCancelSchema>;
