import type { Address } from '../customers/address.js';
import type { RecurringInterval } from '../products/schemas.js';
import {
  dialect,
  guarded,
  parseJson,
  toBool,
  toDate,
  toDateOrNull,
  toStringOrNull,
  whereContains,
  type Db,
  type Deferred,
} from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { Metadata } from '../polar-api/schemas.js';
import type { CheckoutStatus } from './schemas.js';

export type CustomFieldData = Record<string, string | number | boolean | null>;

export interface Amounts {
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
}

export interface Checkout extends Amounts {
  id: string;
  organizationId: string;
  clientSecret: string;
  status: CheckoutStatus;
  paymentProcessor: string;
  successUrl: string | null;
  returnUrl: string | null;
  embedOrigin: string | null;
  expiresAt: Date;
  productId: string;
  productPriceId: string;
  productIds: string[];
  discountId: string | null;
  allowDiscountCodes: boolean;
  requireBillingAddress: boolean;
  customAmount: number | null;
  /** The checkout's trial, overriding the product's (checkouts/trial.ts); null: the product's. */
  trialInterval: RecurringInterval | null;
  trialIntervalCount: number | null;
  /** false turns the trial off; null or true leave it on. */
  allowTrial: boolean | null;
  currency: string;
  customerId: string | null;
  externalCustomerId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerIpAddress: string | null;
  customerBillingName: string | null;
  customerBillingAddress: Address | null;
  customerTaxId: string | null;
  isBusinessCustomer: boolean;
  metadata: Metadata;
  customerMetadata: Metadata;
  customFieldData: CustomFieldData;
  checkoutLinkId: string | null;
  orderId: string | null;
  subscriptionId: string | null;
  failureReason: string | null;
  /** Confirmations that reached the charge step; the charge's idempotency key is `<id>:<chargeAttempts>`. */
  chargeAttempts: number;
  /** When the confirming request (or a reconciler's claim) last took the checkout in hand while `confirmed`. */
  inFlightAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): Checkout {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    clientSecret: String(row.client_secret),
    status: String(row.status) as CheckoutStatus,
    paymentProcessor: String(row.payment_processor),
    successUrl: toStringOrNull(row.success_url),
    returnUrl: toStringOrNull(row.return_url),
    embedOrigin: toStringOrNull(row.embed_origin),
    expiresAt: toDate(row.expires_at),
    productId: String(row.product_id),
    productPriceId: String(row.product_price_id),
    productIds: parseJson<string[]>(row.product_ids) ?? [],
    discountId: toStringOrNull(row.discount_id),
    allowDiscountCodes: toBool(row.allow_discount_codes),
    requireBillingAddress: toBool(row.require_billing_address),
    customAmount: row.custom_amount === null || row.custom_amount === undefined ? null : Number(row.custom_amount),
    currency: String(row.currency),
    subtotalAmount: Number(row.subtotal_amount),
    discountAmount: Number(row.discount_amount),
    netAmount: Number(row.net_amount),
    taxAmount: Number(row.tax_amount),
    totalAmount: Number(row.total_amount),
    customerId: toStringOrNull(row.customer_id),
    externalCustomerId: toStringOrNull(row.external_customer_id),
    customerName: toStringOrNull(row.customer_name),
    customerEmail: toStringOrNull(row.customer_email),
    customerIpAddress: toStringOrNull(row.customer_ip_address),
    customerBillingName: toStringOrNull(row.customer_billing_name),
    customerBillingAddress: parseJson<Address>(row.customer_billing_address),
    customerTaxId: toStringOrNull(row.customer_tax_id),
    isBusinessCustomer: toBool(row.is_business_customer),
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    customerMetadata: parseJson<Metadata>(row.customer_metadata) ?? {},
    customFieldData: parseJson<CustomFieldData>(row.custom_field_data) ?? {},
    checkoutLinkId: toStringOrNull(row.checkout_link_id),
    trialInterval: (toStringOrNull(row.trial_interval) as RecurringInterval | null) ?? null,
    trialIntervalCount:
      row.trial_interval_count === null || row.trial_interval_count === undefined
        ? null
        : Number(row.trial_interval_count),
    allowTrial: row.allow_trial === null || row.allow_trial === undefined ? null : toBool(row.allow_trial),
    orderId: toStringOrNull(row.order_id),
    subscriptionId: toStringOrNull(row.subscription_id),
    failureReason: toStringOrNull(row.failure_reason),
    chargeAttempts: Number(row.charge_attempts ?? 0),
    inFlightAt: toDateOrNull(row.in_flight_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function toRow(checkout: Checkout): Record<string, unknown> {
  return {
    id: checkout.id,
    organization_id: checkout.organizationId,
    client_secret: checkout.clientSecret,
    status: checkout.status,
    payment_processor: checkout.paymentProcessor,
    success_url: checkout.successUrl,
    return_url: checkout.returnUrl,
    embed_origin: checkout.embedOrigin,
    expires_at: checkout.expiresAt,
    product_id: checkout.productId,
    product_price_id: checkout.productPriceId,
    product_ids: JSON.stringify(checkout.productIds),
    discount_id: checkout.discountId,
    allow_discount_codes: checkout.allowDiscountCodes,
    require_billing_address: checkout.requireBillingAddress,
    custom_amount: checkout.customAmount,
    currency: checkout.currency,
    subtotal_amount: checkout.subtotalAmount,
    discount_amount: checkout.discountAmount,
    net_amount: checkout.netAmount,
    tax_amount: checkout.taxAmount,
    total_amount: checkout.totalAmount,
    customer_id: checkout.customerId,
    external_customer_id: checkout.externalCustomerId,
    customer_name: checkout.customerName,
    customer_email: checkout.customerEmail,
    customer_ip_address: checkout.customerIpAddress,
    customer_billing_name: checkout.customerBillingName,
    customer_billing_address: checkout.customerBillingAddress ? JSON.stringify(checkout.customerBillingAddress) : null,
    customer_tax_id: checkout.customerTaxId,
    is_business_customer: checkout.isBusinessCustomer,
    metadata: JSON.stringify(checkout.metadata),
    customer_metadata: JSON.stringify(checkout.customerMetadata),
    custom_field_data: JSON.stringify(checkout.customFieldData),
    checkout_link_id: checkout.checkoutLinkId,
    trial_interval: checkout.trialInterval,
    trial_interval_count: checkout.trialIntervalCount,
    allow_trial: checkout.allowTrial,
    order_id: checkout.orderId,
    subscription_id: checkout.subscriptionId,
    failure_reason: checkout.failureReason,
    charge_attempts: checkout.chargeAttempts,
    in_flight_at: checkout.inFlightAt,
    created_at: checkout.createdAt,
    modified_at: checkout.modifiedAt,
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}

export interface CheckoutFilter {
  organizationIds: string[];
  productIds?: string[];
  customerIds?: string[];
  statuses?: string[];
  query?: string;
}

/** Every column a save writes: all but the id and the creation time, which never change. */
function savedColumns(checkout: Checkout): Record<string, unknown> {
  const { id: _id, created_at: _created, ...columns } = toRow(checkout);
  return columns;
}

export function checkoutsRepository(db: Db) {
  return {
    /** The INSERT, not run yet (see Deferred). */
    deferInsert(checkout: Checkout): Deferred {
      return db('checkouts').insert(toRow(checkout));
    },
    async findById(id: string): Promise<Checkout | null> {
      const row = await db('checkouts').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    async findByIds(ids: readonly string[]): Promise<Checkout[]> {
      if (ids.length === 0) return [];
      return ((await db('checkouts').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(fromRow);
    },
    async findByClientSecret(clientSecret: string): Promise<Checkout | null> {
      const row = await db('checkouts').where({ client_secret: clientSecret }).first();
      return row ? fromRow(row) : null;
    },
    /**
     * Writes every column, as a statement not run yet that fails (isGuardFailure on checkouts.status) unless the
     * checkout is in `expectedStatus`: for a transaction sent without reading its answers (see finishWith).
     */
    deferGuardedSave(checkout: Checkout, expectedStatus: CheckoutStatus): Deferred {
      return db('checkouts')
        .where({ id: checkout.id })
        .update({
          ...savedColumns(checkout),
          status: guarded(db, 'status = ?', '?', [expectedStatus, checkout.status]),
        });
    },
    /** Writes every column; only while the checkout is in `expectedStatus`. Returns whether a row changed. */
    async save(checkout: Checkout, expectedStatus: CheckoutStatus): Promise<boolean> {
      const changed = await db('checkouts')
        .where({ id: checkout.id, status: expectedStatus })
        .update(savedColumns(checkout));
      return Number(changed) === 1;
    },
    /**
     * Writes only the columns that differ from `previous` (what this caller last read or wrote), only while the
     * checkout is in `expectedStatus`. For transitions whose status guard makes the caller the only writer (out of
     * `confirmed`); elsewhere `save` keeps a concurrent update from mixing its columns with ours.
     */
    async saveChanges(previous: Checkout, next: Checkout, expectedStatus: CheckoutStatus): Promise<boolean> {
      return Number(await this.deferChanges(previous, next, expectedStatus)) === 1;
    },
    /** saveChanges as a statement not run yet, for a caller that does not read whether it applied (see finishWith). */
    deferChanges(previous: Checkout, next: Checkout, expectedStatus: CheckoutStatus): Deferred {
      const before = toRow(previous);
      const columns: Record<string, unknown> = {};
      for (const [column, value] of Object.entries(toRow(next)))
        if (!sameValue(before[column], value)) columns[column] = value;
      if (Object.keys(columns).length === 0) columns.status = next.status;
      return db('checkouts').where({ id: next.id, status: expectedStatus }).update(columns);
    },
    /**
     * Claims up to `limit` checkouts left `confirmed` since `staleBefore` or earlier (their confirmation died between
     * the race and the order) for one reconciler, in one statement: the claim moves `in_flight_at` to `now`, so no
     * other reconciler takes them again before the lease runs out, and on PostgreSQL SKIP LOCKED lets concurrent
     * claimers pass over each other's rows. The status test is repeated outside the subquery, so a row settled
     * meanwhile is not claimed.
     */
    async claimStale(now: Date, staleBefore: Date, limit: number): Promise<Checkout[]> {
      const stale = (query: ReturnType<Db>) =>
        query.where('status', 'confirmed').andWhere((due) => {
          due.whereNull('in_flight_at').orWhere('in_flight_at', '<=', staleBefore);
        });
      let candidates = stale(db('checkouts').select('id')).orderBy('in_flight_at', 'asc').limit(limit);
      if (dialect(db) === 'postgres') candidates = candidates.forUpdate().skipLocked();
      const rows = await stale(db('checkouts').whereIn('id', candidates)).update({ in_flight_at: now }).returning('*');
      return (rows as Record<string, unknown>[]).map(fromRow);
    },
    /**
     * deferChanges that fails its transaction (isGuardFailure on checkouts.status) unless the checkout is still in
     * `expectedStatus`: for a write whose answer is not read but must not apply after someone else moved the checkout.
     */
    deferGuardedChanges(previous: Checkout, next: Checkout, expectedStatus: CheckoutStatus): Deferred {
      const before = toRow(previous);
      const columns: Record<string, unknown> = {};
      for (const [column, value] of Object.entries(toRow(next)))
        if (!sameValue(before[column], value)) columns[column] = value;
      columns.status = guarded(db, 'status = ?', '?', [expectedStatus, next.status]);
      return db('checkouts').where({ id: next.id }).update(columns);
    },
    async list(filter: CheckoutFilter, options: ListOptions) {
      const query = db('checkouts').whereIn('organization_id', filter.organizationIds);
      if (filter.productIds?.length) query.whereIn('product_id', filter.productIds);
      if (filter.customerIds?.length) query.whereIn('customer_id', filter.customerIds);
      if (filter.statuses?.length) query.whereIn('status', filter.statuses);
      if (filter.query) whereContains(query, ['customer_email'], filter.query);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        expires_at: 'expires_at',
        status: 'status',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
  };
}
