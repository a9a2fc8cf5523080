import { z } from 'zod';
import { datetime } from '../polar-api/schemas.js';
import { repeated, uuidFilter } from '../kernel/pagination.js';
import { ORDER_STATUSES } from '../orders/schemas.js';
import { queryBoolean } from '../subscriptions/inputs.js';
import { SUBSCRIPTION_STATUSES } from '../subscriptions/schemas.js';
import { isTimeZone } from './csv.js';

/** Polar's OrderExportColumn, SubscriptionExportColumn (in their order) and the defaults its endpoints name. */
export const ORDER_EXPORT_COLUMNS = [
  'email',
  'created_at',
  'product',
  'net_amount',
  'currency',
  'status',
  'invoice_number',
  'customer_name',
  'billing_name',
  'billing_country',
  'subtotal_amount',
  'discount_amount',
  'tax_amount',
  'total_amount',
  'refunded_amount',
  'billing_reason',
] as const;
export const DEFAULT_ORDER_COLUMNS = ORDER_EXPORT_COLUMNS.slice(0, 7);

export const SUBSCRIPTION_EXPORT_COLUMNS = [
  'email',
  'started_at',
  'product',
  'amount',
  'currency',
  'status',
  'recurring_interval',
  'customer_name',
  'billing_name',
  'billing_country',
  'net_amount',
  'discount',
  'seats',
  'current_period_start',
  'current_period_end',
  'cancel_at_period_end',
  'canceled_at',
  'ends_at',
  'ended_at',
  'cancellation_reason',
  'trial_start',
  'trial_end',
] as const;
export const DEFAULT_SUBSCRIPTION_COLUMNS = SUBSCRIPTION_EXPORT_COLUMNS.slice(0, 7);

const timezone = z
  .string()
  .max(64)
  .default('UTC')
  .refine(isTimeZone, { message: 'Input should be a valid IANA time zone, such as UTC or Europe/Paris' });

export const orderExportQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  status: repeated(z.enum(ORDER_STATUSES)).optional(),
  created_after: datetime.optional(),
  created_before: datetime.optional(),
  timezone,
  columns: repeated(z.enum(ORDER_EXPORT_COLUMNS)).optional(),
});
export type OrderExportQuery = z.output<typeof orderExportQuery>;

export const subscriptionExportQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  product_id: uuidFilter().optional(),
  status: repeated(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  cancel_at_period_end: queryBoolean.optional(),
  started_after: datetime.optional(),
  started_before: datetime.optional(),
  timezone,
  columns: repeated(z.enum(SUBSCRIPTION_EXPORT_COLUMNS)).optional(),
});
export type SubscriptionExportQuery = z.output<typeof subscriptionExportQuery>;

export const customerExportQuery = z.object({
  organization_id: repeated(z.string()).optional(),
});
export type CustomerExportQuery = z.output<typeof customerExportQuery>;
