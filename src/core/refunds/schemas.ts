import { z } from 'zod';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, metadataInput, metadataOutput } from '../polar-api/schemas.js';

// Kept free of repositories (and so of Knex): the CLI imports this module for the reasons.
const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Polar's RefundReason (`dispute_prevention` is set by Polar itself, never taken as input). */
export const REFUND_REASONS = [
  'duplicate',
  'fraudulent',
  'customer_request',
  'service_disruption',
  'satisfaction_guarantee',
  'dispute_prevention',
  'other',
] as const;
export const REFUND_INPUT_REASONS = REFUND_REASONS.filter((reason) => reason !== 'dispute_prevention');
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const refundCreateSchema = z
  .strictObject({
    order_id: z.uuid(),
    reason: z.enum(REFUND_INPUT_REASONS as [string, ...string[]]),
    amount: z.number().int().positive(),
    comment: z.string().max(10_000).nullable().optional(),
    revoke_benefits: z.boolean().optional().default(false),
    metadata: metadataInput.optional(),
  })
  .meta({ id: 'RefundCreate' });
export type RefundCreateInput = z.output<typeof refundCreateSchema>;

export const refundSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    metadata: metadataOutput,
    status: z.enum(REFUND_STATUSES),
    reason: z.enum(REFUND_REASONS),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    currency: z.string(),
    organization_id: z.string(),
    order_id: z.string(),
    subscription_id: z.string().nullable(),
    customer_id: z.string(),
    revoke_benefits: z.boolean(),
    dispute: z.null(),
  })
  .meta({ id: 'Refund' });
export type RefundWire = z.infer<typeof refundSchema>;

export const refundListSchema = listResource(refundSchema, 'ListResource_Refund_');

export const refundListQuery = z.object({
  id: uuidFilter().optional(),
  organization_id: repeated(z.string()).optional(),
  order_id: uuidFilter().optional(),
  subscription_id: uuidFilter().optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string()).optional(),
  succeeded: queryBoolean.optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'amount']),
});
export type RefundListQuery = z.output<typeof refundListQuery>;
