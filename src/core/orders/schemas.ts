import { z } from 'zod';
import { addressOutput } from '../customers/address.js';
import { customerSchema } from '../customers/schemas.js';
import { discountBaseSchema } from '../discounts/schemas.js';
import { datetime, listResource, metadataOutput } from '../polar-api/schemas.js';
import { orderSubscriptionSchema } from '../subscriptions/schemas.js';

import { ORDER_STATUSES } from './types.js';

export { ORDER_STATUSES, type OrderStatus } from './types.js';
export const BILLING_REASONS = [
  'purchase',
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
] as const;
export type BillingReason = (typeof BILLING_REASONS)[number];

export const orderItemSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    label: z.string(),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    proration: z.boolean(),
    product_price_id: z.string().nullable(),
  })
  .meta({ id: 'OrderItemSchema' });

export const orderProductSchema = z
  .object({
    metadata: metadataOutput,
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    trial_interval: z.string().nullable(),
    trial_interval_count: z.number().int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    visibility: z.string(),
    recurring_interval: z.string().nullable(),
    recurring_interval_count: z.number().int().nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.string(),
  })
  .meta({ id: 'OrderProduct' });

export const orderSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    status: z.enum(ORDER_STATUSES),
    paid: z.boolean(),
    subtotal_amount: z.number().int(),
    discount_amount: z.number().int(),
    net_amount: z.number().int(),
    tax_amount: z.number().int(),
    total_amount: z.number().int(),
    applied_balance_amount: z.number().int(),
    due_amount: z.number().int(),
    refunded_amount: z.number().int(),
    refunded_tax_amount: z.number().int(),
    currency: z.string(),
    billing_reason: z.enum(BILLING_REASONS),
    billing_name: z.string().nullable(),
    billing_address: addressOutput.nullable(),
    invoice_number: z.string(),
    is_invoice_generated: z.boolean(),
    seats: z.number().int().nullable(),
    customer_id: z.string(),
    product_id: z.string().nullable(),
    discount_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    checkout_id: z.string().nullable(),
    metadata: metadataOutput,
    custom_field_data: z.record(z.string(), z.union([z.string(), z.number().int(), z.boolean(), z.null()])),
    platform_fee_amount: z.number().int(),
    platform_fee_currency: z.string().nullable(),
    customer: customerSchema,
    user_id: z.string(),
    product: orderProductSchema.nullable(),
    discount: discountBaseSchema.nullable(),
    subscription: orderSubscriptionSchema.nullable(),
    items: z.array(orderItemSchema),
    description: z.string(),
  })
  .meta({ id: 'Order' });

export const orderListSchema = listResource(orderSchema, 'ListResource_Order_');
export type OrderWire = z.infer<typeof orderSchema>;
