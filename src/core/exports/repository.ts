import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { parseJson, toBool, toDate, toDateOrNull, toStringOrNull } from '../database/index.js';
import type { Address } from '../customers/address.js';

/**
 * The rows of a CSV export, read in keyset batches (created_at, id) so that an export of a million rows holds one
 * batch in memory at a time and gives the connection back between batches (SQLite has only one). Each batch is one
 * organization's: a range of its (organization_id, created_at, id) index, in order, so no batch sorts or re-reads
 * the rows before its cursor (the service merges organizations). Only the columns the CSV can show are selected.
 */

export interface Cursor {
  createdAt: Date;
  id: string;
}

export interface OrderExportFilter {
  productIds?: string[];
  statuses?: string[];
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface SubscriptionExportFilter {
  productIds?: string[];
  statuses?: string[];
  cancelAtPeriodEnd?: boolean;
  startedAfter?: Date;
  startedBefore?: Date;
}

export interface OrderExportRow {
  id: string;
  createdAt: Date;
  email: string | null;
  customerName: string | null;
  product: string | null;
  status: string;
  billingReason: string;
  billingName: string | null;
  billingCountry: string | null;
  currency: string;
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  refundedAmount: number;
  invoiceNumber: string;
}

export interface SubscriptionExportRow {
  id: string;
  createdAt: Date;
  email: string | null;
  customerName: string | null;
  billingName: string | null;
  billingCountry: string | null;
  product: string | null;
  discount: string | null;
  amount: number;
  currency: string;
  status: string;
  recurringInterval: string;
  startedAt: Date | null;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  canceledAt: Date | null;
  endsAt: Date | null;
  endedAt: Date | null;
  cancellationReason: string | null;
  trialStart: Date | null;
  trialEnd: Date | null;
}

export interface CustomerExportRow {
  id: string;
  createdAt: Date;
  externalId: string | null;
  email: string | null;
  name: string | null;
  billingName: string | null;
  billingAddress: Address | null;
  taxId: string | null;
}

/**
 * Rows after the cursor, as a row-value comparison: both databases take `(created_at, id) > (c, i)` after the
 * organization's equality as the start of a range of the (organization_id, created_at, id) index.
 */
function after(query: Knex.QueryBuilder, table: string, cursor: Cursor | null): void {
  if (!cursor) return;
  query.whereRaw(`(${table}.created_at, ${table}.id) > (?, ?)`, [cursor.createdAt, cursor.id]);
}

function keyOrder(table: string): Array<{ column: string; order: 'asc' }> {
  return [
    { column: `${table}.created_at`, order: 'asc' },
    { column: `${table}.id`, order: 'asc' },
  ];
}

function country(raw: unknown): string | null {
  return parseJson<Address>(raw)?.country ?? null;
}

export function exportsRepository(db: Db) {
  return {
    async orders(
      organizationId: string,
      filter: OrderExportFilter,
      cursor: Cursor | null,
      limit: number,
    ): Promise<OrderExportRow[]> {
      const query = db('orders as o')
        .leftJoin('customers as c', 'c.id', 'o.customer_id')
        .leftJoin('products as p', 'p.id', 'o.product_id')
        .where('o.organization_id', organizationId)
        .select(
          'o.id',
          'o.created_at',
          'o.status',
          'o.billing_reason',
          'o.billing_name',
          'o.billing_address',
          'o.currency',
          'o.subtotal_amount',
          'o.discount_amount',
          'o.net_amount',
          'o.tax_amount',
          'o.total_amount',
          'o.refunded_amount',
          'o.invoice_number',
          'c.email as customer_email',
          'c.name as customer_name',
          'p.name as product_name',
        )
        .orderBy(keyOrder('o'))
        .limit(limit);
      if (filter.productIds?.length) query.whereIn('o.product_id', filter.productIds);
      if (filter.statuses?.length) query.whereIn('o.status', filter.statuses);
      if (filter.createdAfter) query.where('o.created_at', '>', filter.createdAfter);
      if (filter.createdBefore) query.where('o.created_at', '<', filter.createdBefore);
      after(query, 'o', cursor);
      return ((await query) as Array<Record<string, unknown>>).map((row) => ({
        id: String(row.id),
        createdAt: toDate(row.created_at),
        email: toStringOrNull(row.customer_email),
        customerName: toStringOrNull(row.customer_name),
        product: toStringOrNull(row.product_name),
        status: String(row.status),
        billingReason: String(row.billing_reason),
        billingName: toStringOrNull(row.billing_name),
        billingCountry: country(row.billing_address),
        currency: String(row.currency),
        subtotalAmount: Number(row.subtotal_amount),
        discountAmount: Number(row.discount_amount),
        netAmount: Number(row.net_amount),
        taxAmount: Number(row.tax_amount),
        totalAmount: Number(row.total_amount),
        refundedAmount: Number(row.refunded_amount),
        invoiceNumber: String(row.invoice_number),
      }));
    },

    async subscriptions(
      organizationId: string,
      filter: SubscriptionExportFilter,
      cursor: Cursor | null,
      limit: number,
    ): Promise<SubscriptionExportRow[]> {
      const query = db('subscriptions as s')
        .leftJoin('customers as c', 'c.id', 's.customer_id')
        .leftJoin('products as p', 'p.id', 's.product_id')
        .leftJoin('discounts as d', 'd.id', 's.discount_id')
        .where('s.organization_id', organizationId)
        .select(
          's.id',
          's.created_at',
          's.amount',
          's.currency',
          's.status',
          's.recurring_interval',
          's.started_at',
          's.current_period_start',
          's.current_period_end',
          's.cancel_at_period_end',
          's.canceled_at',
          's.ends_at',
          's.ended_at',
          's.customer_cancellation_reason',
          's.trial_start',
          's.trial_end',
          'c.email as customer_email',
          'c.name as customer_name',
          'c.billing_name as customer_billing_name',
          'c.billing_address as customer_billing_address',
          'p.name as product_name',
          'd.name as discount_name',
        )
        .orderBy(keyOrder('s'))
        .limit(limit);
      if (filter.productIds?.length) query.whereIn('s.product_id', filter.productIds);
      if (filter.statuses?.length) query.whereIn('s.status', filter.statuses);
      if (filter.cancelAtPeriodEnd !== undefined) query.where('s.cancel_at_period_end', filter.cancelAtPeriodEnd);
      if (filter.startedAfter) query.where('s.started_at', '>', filter.startedAfter);
      if (filter.startedBefore) query.where('s.started_at', '<', filter.startedBefore);
      after(query, 's', cursor);
      return ((await query) as Array<Record<string, unknown>>).map((row) => ({
        id: String(row.id),
        createdAt: toDate(row.created_at),
        email: toStringOrNull(row.customer_email),
        customerName: toStringOrNull(row.customer_name),
        billingName: toStringOrNull(row.customer_billing_name),
        billingCountry: country(row.customer_billing_address),
        product: toStringOrNull(row.product_name),
        discount: toStringOrNull(row.discount_name),
        amount: Number(row.amount),
        currency: String(row.currency),
        status: String(row.status),
        recurringInterval: String(row.recurring_interval),
        startedAt: toDateOrNull(row.started_at),
        currentPeriodStart: toDate(row.current_period_start),
        currentPeriodEnd: toDate(row.current_period_end),
        cancelAtPeriodEnd: toBool(row.cancel_at_period_end),
        canceledAt: toDateOrNull(row.canceled_at),
        endsAt: toDateOrNull(row.ends_at),
        endedAt: toDateOrNull(row.ended_at),
        cancellationReason: toStringOrNull(row.customer_cancellation_reason),
        trialStart: toDateOrNull(row.trial_start),
        trialEnd: toDateOrNull(row.trial_end),
      }));
    },

    async customers(organizationId: string, cursor: Cursor | null, limit: number): Promise<CustomerExportRow[]> {
      const query = db('customers as c')
        .where('c.organization_id', organizationId)
        .whereNull('c.deleted_at')
        .select(
          'c.id',
          'c.created_at',
          'c.external_id',
          'c.email',
          'c.name',
          'c.billing_name',
          'c.billing_address',
          'c.tax_id',
        )
        .orderBy(keyOrder('c'))
        .limit(limit);
      after(query, 'c', cursor);
      return ((await query) as Array<Record<string, unknown>>).map((row) => ({
        id: String(row.id),
        createdAt: toDate(row.created_at),
        externalId: toStringOrNull(row.external_id),
        email: toStringOrNull(row.email),
        name: toStringOrNull(row.name),
        billingName: toStringOrNull(row.billing_name),
        billingAddress: parseJson<Address>(row.billing_address),
        taxId: parseJson<[string, string]>(row.tax_id)?.[0] ?? null,
      }));
    },
  };
}
