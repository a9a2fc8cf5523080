import { z } from 'zod';
import { addressInput } from '../customers/address.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { BILLING_REASONS, ORDER_STATUSES } from './schemas.js';

/** Polar's ProductBillingType: orders of a one-time product or of a recurring one. */
export const PRODUCT_BILLING_TYPES = ['one_time', 'recurring'] as const;

export const orderListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  product_billing_type: repeated(z.enum(PRODUCT_BILLING_TYPES)).optional(),
  discount_id: uuidFilter().optional(),
  customer_id: uuidFilter().optional(),
  external_customer_id: repeated(z.string()).optional(),
  checkout_id: uuidFilter().optional(),
  subscription_id: uuidFilter().optional(),
  status: repeated(z.enum(ORDER_STATUSES)).optional(),
  // Not one of Polar's filters, but the billing reason is on every order and cheap to filter by.
  billing_reason: repeated(z.enum(BILLING_REASONS)).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'status', 'invoice_number', 'amount', 'net_amount']),
});
export type OrderListQuery = z.output<typeof orderListQuery>;

/** Polar's OrderUpdate: the name and address printed on the invoice. */
export const orderUpdateSchema = z
  .strictObject({
    billing_name: z.string().max(256).nullable().optional(),
    billing_address: addressInput.nullable().optional(),
  })
  .meta({ id: 'OrderUpdate' });
export type OrderUpdateInput = z.output<typeof orderUpdateSchema>;
