import type { Db, Deferred } from '../database/index.js';
import { dialect, parseJson, toBool, toDate, toDateOrNull, toStringOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import { stampsFromRow, whereAnyOf, whereExternalCustomers, type ResourceStamps } from '../polar-api/resource-rows.js';
import type { CancellationReason, SubscriptionStatus } from './schemas.js';

export interface Subscription extends ResourceStamps {
  id: string;
  organizationId: string;
  customerId: string;
  productId: string;
  productPriceId: string;
  checkoutId: string | null;
  discountId: string | null;
  status: SubscriptionStatus;
  amount: number;
  currency: string;
  recurringInterval: string;
  recurringIntervalCount: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  trialStart: Date | null;
  trialEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: Date | null;
  startedAt: Date | null;
  endsAt: Date | null;
  endedAt: Date | null;
  customerCancellationReason: CancellationReason | null;
  customerCancellationComment: string | null;
  paymentProcessor: string;
  /** The customer's payment method this subscription bills (payment_methods), null for one bought before they existed. */
  paymentMethodId: string | null;
  /** That method's processor reference, kept beside it so a renewal charges without a join. */
  paymentMethodReference: string | null;
  billedPeriods: number;
  /** When the first failed renewal made it past due; null when it is not. */
  pastDueAt: Date | null;
  /** Minor units the next cycle order takes off (a credit larger than the last order's charges). */
  carriedCredit: number;
  /** Set to pause when the period ends (the cycle's pause hook carries it out), instead of renewing. */
  pauseAtPeriodEnd: boolean;
  pausedAt: Date | null;
  /** When a paused subscription resumes on its own (a scheduled job), or null to stay paused until resumed. */
  resumesAt: Date | null;
  /**
   * Where the period count restarts after a change that started a new period (a change of interval, a resume): the
   * cycle counts `billedPeriods` from here; null counts from the start (or the trial's end).
   */
  periodAnchor: Date | null;
  customFieldData: Record<string, string | number | boolean | null>;
}

function fromRow(row: Record<string, unknown>): Subscription {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    customerId: String(row.customer_id),
    productId: String(row.product_id),
    productPriceId: String(row.product_price_id),
    checkoutId: toStringOrNull(row.checkout_id),
    discountId: toStringOrNull(row.discount_id),
    status: String(row.status) as SubscriptionStatus,
    amount: Number(row.amount),
    currency: String(row.currency),
    recurringInterval: String(row.recurring_interval),
    recurringIntervalCount: Number(row.recurring_interval_count),
    currentPeriodStart: toDate(row.current_period_start),
    currentPeriodEnd: toDate(row.current_period_end),
    trialStart: toDateOrNull(row.trial_start),
    trialEnd: toDateOrNull(row.trial_end),
    cancelAtPeriodEnd: toBool(row.cancel_at_period_end),
    canceledAt: toDateOrNull(row.canceled_at),
    startedAt: toDateOrNull(row.started_at),
    endsAt: toDateOrNull(row.ends_at),
    endedAt: toDateOrNull(row.ended_at),
    customerCancellationReason: toStringOrNull(row.customer_cancellation_reason) as CancellationReason | null,
    customerCancellationComment: toStringOrNull(row.customer_cancellation_comment),
    paymentProcessor: String(row.payment_processor),
    paymentMethodId: toStringOrNull(row.payment_method_id),
    paymentMethodReference: toStringOrNull(row.payment_method_reference),
    billedPeriods: Number(row.billed_periods),
    pastDueAt: toDateOrNull(row.past_due_at),
    carriedCredit: Number(row.carried_credit ?? 0),
    pauseAtPeriodEnd: toBool(row.pause_at_period_end),
    pausedAt: toDateOrNull(row.paused_at),
    resumesAt: toDateOrNull(row.resumes_at),
    periodAnchor: toDateOrNull(row.period_anchor),
    customFieldData: parseJson<Subscription['customFieldData']>(row.custom_field_data) ?? {},
    ...stampsFromRow(row),
  };
}

function toRow(subscription: Subscription): Record<string, unknown> {
  return {
    id: subscription.id,
    organization_id: subscription.organizationId,
    customer_id: subscription.customerId,
    product_id: subscription.productId,
    product_price_id: subscription.productPriceId,
    checkout_id: subscription.checkoutId,
    discount_id: subscription.discountId,
    status: subscription.status,
    amount: subscription.amount,
    currency: subscription.currency,
    recurring_interval: subscription.recurringInterval,
    recurring_interval_count: subscription.recurringIntervalCount,
    current_period_start: subscription.currentPeriodStart,
    current_period_end: subscription.currentPeriodEnd,
    trial_start: subscription.trialStart,
    trial_end: subscription.trialEnd,
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    canceled_at: subscription.canceledAt,
    started_at: subscription.startedAt,
    ends_at: subscription.endsAt,
    ended_at: subscription.endedAt,
    customer_cancellation_reason: subscription.customerCancellationReason,
    customer_cancellation_comment: subscription.customerCancellationComment,
    payment_processor: subscription.paymentProcessor,
    payment_method_id: subscription.paymentMethodId,
    payment_method_reference: subscription.paymentMethodReference,
    billed_periods: subscription.billedPeriods,
    past_due_at: subscription.pastDueAt,
    carried_credit: subscription.carriedCredit,
    pause_at_period_end: subscription.pauseAtPeriodEnd,
    paused_at: subscription.pausedAt,
    resumes_at: subscription.resumesAt,
    period_anchor: subscription.periodAnchor,
    metadata: JSON.stringify(subscription.metadata),
    custom_field_data: JSON.stringify(subscription.customFieldData),
    created_at: subscription.createdAt,
    modified_at: subscription.modifiedAt,
  };
}

/** Statuses after which a subscription never charges again. */
const ENDED_STATUSES = ['canceled', 'incomplete', 'incomplete_expired'];

export interface SubscriptionFilter {
  organizationIds: string[];
  productIds?: string[];
  customerIds?: string[];
  statuses?: string[];
  /** true: active or trialing (Polar's `active` filter); false: everything else. */
  active?: boolean;
  metadata?: MetadataQuery;
  discountIds?: string[];
  /** Customers named by the merchant's external id. */
  externalCustomerIds?: string[];
  cancelAtPeriodEnd?: boolean;
  cancellationReasons?: string[];
}

export function subscriptionsRepository(db: Db) {
  return {
    /** The INSERT, not run yet (see Deferred). */
    deferInsert(subscription: Subscription): Deferred {
      return db('subscriptions').insert(toRow(subscription));
    },
    async findById(id: string): Promise<Subscription | null> {
      const row = await db('subscriptions').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    /** Subscriptions by id, unknown ids left out: one query for a whole page of orders. */
    async findByIds(ids: readonly string[]): Promise<Subscription[]> {
      if (ids.length === 0) return [];
      return ((await db('subscriptions').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(
        fromRow,
      );
    },
    /** The distinct products and prices the subscriptions bill (a batch of renewals' catalog, usually one pair). */
    async pricesBilled(ids: readonly string[]): Promise<Array<{ productId: string; productPriceId: string }>> {
      if (ids.length === 0) return [];
      const rows = (await db('subscriptions')
        .whereIn('id', [...new Set(ids)])
        .distinct('product_id', 'product_price_id')) as Array<Record<string, unknown>>;
      return rows.map((row) => ({ productId: String(row.product_id), productPriceId: String(row.product_price_id) }));
    },
    /** Reads and locks the row (PostgreSQL) for a change that must not interleave with another. */
    async lock(id: string): Promise<Subscription | null> {
      const query = db('subscriptions').where({ id });
      const row = await (dialect(db) === 'postgres' ? query.forUpdate() : query).first();
      return row ? fromRow(row) : null;
    },
    /**
     * save for many (a batch of renewals) as multi-row upserts of rows that exist: one statement per 100 rows where
     * UPDATEs would take one each (a round trip each on PostgreSQL).
     */
    deferSaveMany(subscriptions: readonly Subscription[]): Deferred[] {
      const rows = subscriptions.map(toRow);
      if (rows.length === 0) return [];
      const columns = Object.keys(rows[0]!).filter((column) => column !== 'id' && column !== 'created_at');
      const writes: Deferred[] = [];
      for (let start = 0; start < rows.length; start += 100)
        writes.push(
          db('subscriptions')
            .insert(rows.slice(start, start + 100))
            .onConflict('id')
            .merge(columns),
        );
      return writes;
    },
    /** lock for many (a batch of renewals), in one order of ids so two batches never deadlock. */
    async lockMany(ids: readonly string[]): Promise<Subscription[]> {
      if (ids.length === 0) return [];
      const query = db('subscriptions').whereIn('id', [...new Set(ids)]);
      const rows = (await (dialect(db) === 'postgres' ? query.orderBy('id').forUpdate() : query)) as Array<
        Record<string, unknown>
      >;
      return rows.map(fromRow);
    },
    async save(subscription: Subscription): Promise<void> {
      const { id: _id, created_at: _created, ...columns } = toRow(subscription);
      await db('subscriptions').where({ id: subscription.id }).update(columns);
    },
    async forCustomer(customerId: string, statuses: readonly SubscriptionStatus[]): Promise<Subscription[]> {
      return (
        await db('subscriptions')
          .where({ customer_id: customerId })
          .whereIn('status', statuses)
          .orderBy('created_at', 'asc')
      ).map(fromRow);
    },
    /** forCustomer for many customers at once, oldest first. */
    async forCustomers(
      customerIds: readonly string[],
      statuses: readonly SubscriptionStatus[],
    ): Promise<Subscription[]> {
      if (customerIds.length === 0) return [];
      return (
        await db('subscriptions')
          .whereIn('customer_id', [...new Set(customerIds)])
          .whereIn('status', statuses)
          .orderBy('created_at', 'asc')
      ).map(fromRow);
    },
    /** The ids of a customer's, or a payment method's, subscriptions that may charge again: every one not ended. */
    async billingIds(by: { customer_id: string } | { payment_method_id: string }): Promise<string[]> {
      const rows = (await db('subscriptions').where(by).whereNotIn('status', ENDED_STATUSES).select('id')) as Array<{
        id: string;
      }>;
      return rows.map((row) => String(row.id));
    },
    /**
     * Points subscriptions at another of the customer's methods (its id and processor reference together). Nothing
     * on the subscription's wire changes, so neither does its modified_at.
     */
    async moveBilling(ids: readonly string[], method: { id: string; processorReference: string }): Promise<void> {
      if (ids.length === 0) return;
      await db('subscriptions')
        .whereIn('id', [...ids])
        .update({
          payment_method_id: method.id,
          payment_method_reference: method.processorReference,
        });
    },
    async list(filter: SubscriptionFilter, options: ListOptions) {
      const query = db('subscriptions').whereIn('organization_id', filter.organizationIds);
      whereAnyOf(query, {
        product_id: filter.productIds,
        customer_id: filter.customerIds,
        status: filter.statuses,
        discount_id: filter.discountIds,
      });
      if (filter.active === true) query.whereIn('status', ['active', 'trialing']);
      if (filter.active === false) query.whereNotIn('status', ['active', 'trialing']);
      if (filter.metadata) whereMetadata(db, query, filter.metadata);
      whereExternalCustomers(db, query, filter.organizationIds, filter.externalCustomerIds);
      if (filter.cancelAtPeriodEnd !== undefined) query.where('cancel_at_period_end', filter.cancelAtPeriodEnd);
      if (filter.cancellationReasons?.length) query.whereIn('customer_cancellation_reason', filter.cancellationReasons);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        started_at: 'started_at',
        current_period_end: 'current_period_end',
        ended_at: 'ended_at',
        ends_at: 'ends_at',
        amount: 'amount',
        status: 'status',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
  };
}
