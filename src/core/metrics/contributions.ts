/**
 * What one order, subscription or checkout adds to the metrics, as rows of deltas per UTC hour. The same rules serve
 * the rollups kept with each change (from the events' payloads) and their rebuild (from the tables), so both reach
 * the same figures. Pure: no database, no clock.
 */

/** Counted in the hour they happen and summed over a period. */
export const FLOW_COLUMNS = [
  'orders',
  'revenue',
  'net_revenue',
  'one_time_products',
  'one_time_products_revenue',
  'one_time_products_net_revenue',
  'new_subscriptions',
  'new_subscriptions_revenue',
  'new_subscriptions_net_revenue',
  'renewed_subscriptions',
  'renewed_subscriptions_revenue',
  'renewed_subscriptions_net_revenue',
  'checkouts',
  'succeeded_checkouts',
  'canceled_subscriptions',
  'churned_subscriptions',
] as const;

/** Levels kept as their changes (+ when a subscription starts counting, − when it stops), summed from the start. */
export const GAUGE_COLUMNS = [
  'active_subscriptions',
  'committed_subscriptions',
  'monthly_recurring_revenue',
  'committed_monthly_recurring_revenue',
] as const;

export const METRIC_COLUMNS = [...FLOW_COLUMNS, ...GAUGE_COLUMNS] as const;
export type MetricColumn = (typeof METRIC_COLUMNS)[number];
export type MetricValues = Partial<Record<MetricColumn, number>>;

export type BillingType = 'one_time' | 'recurring';

export interface DeltaRow {
  sourceId: string;
  organizationId: string;
  /** '' for none (checkouts): key columns are never NULL, so upserts can match them. */
  customerId: string;
  currency: string;
  productId: string;
  billingType: BillingType;
  hour: number;
  values: MetricValues;
}

export const HOUR_MS = 3_600_000;

export function hourOf(at: Date): number {
  return Math.floor(at.getTime() / HOUR_MS);
}

export interface OrderFacts {
  id: string;
  organizationId: string;
  customerId: string;
  productId: string | null;
  subscriptionId: string | null;
  status: string;
  billingReason: string;
  netAmount: number;
  refundedAmount: number;
  currency: string;
  createdAt: Date;
}

export interface SubscriptionFacts {
  id: string;
  organizationId: string;
  customerId: string;
  productId: string;
  status: string;
  amount: number;
  currency: string;
  recurringInterval: string;
  recurringIntervalCount: number;
  startedAt: Date | null;
  trialEnd: Date | null;
  canceledAt: Date | null;
  endedAt: Date | null;
}

export interface CheckoutFacts {
  id: string;
  organizationId: string;
  productId: string;
  recurring: boolean;
  currency: string;
  createdAt: Date;
}

const PAID_ORDER_STATUSES = new Set(['paid', 'refunded', 'partially_refunded']);

/**
 * A paid order: its count and revenue (net amount: after discount, before tax) in the hour it was placed; its refunds
 * (before tax) lower the net revenue of that same hour. A pending order counts for nothing yet.
 */
export function orderDeltas(order: OrderFacts): DeltaRow[] {
  if (!PAID_ORDER_STATUSES.has(order.status)) return [];
  const revenue = order.netAmount;
  const net = order.netAmount - order.refundedAmount;
  const values: MetricValues = { orders: 1, revenue, net_revenue: net };
  if (order.billingReason === 'purchase' && !order.subscriptionId) {
    Object.assign(values, {
      one_time_products: 1,
      one_time_products_revenue: revenue,
      one_time_products_net_revenue: net,
    });
  } else if (order.billingReason === 'subscription_create') {
    Object.assign(values, {
      new_subscriptions: 1,
      new_subscriptions_revenue: revenue,
      new_subscriptions_net_revenue: net,
    });
  } else if (order.billingReason === 'subscription_cycle') {
    Object.assign(values, {
      renewed_subscriptions: 1,
      renewed_subscriptions_revenue: revenue,
      renewed_subscriptions_net_revenue: net,
    });
  }
  return [
    {
      sourceId: order.id,
      organizationId: order.organizationId,
      customerId: order.customerId,
      currency: order.currency,
      productId: order.productId ?? '',
      billingType: order.subscriptionId ? 'recurring' : 'one_time',
      hour: hourOf(order.createdAt),
      values,
    },
  ];
}

/** A subscription's amount per month, rounded to the minor unit (half up): a year is 12 months, a week 12/52 of one. */
export function monthlyAmount(amount: number, interval: string, count: number): number {
  const every = Math.max(1, count);
  switch (interval) {
    case 'year':
      return Math.round(amount / (12 * every));
    case 'week':
      return Math.round((amount * 52) / (12 * every));
    case 'day':
      return Math.round((amount * 365) / (12 * every));
    default:
      return Math.round(amount / every);
  }
}

/**
 * A subscription counts as active from its start to its end (trialing and past-due ones included). It brings MRR
 * from the moment it is paid for: its start, or its trial's end once it became active; a subscription still trialing,
 * or one that ended before its trial did, brings none. Committed figures leave out a subscription from the moment it
 * was set to cancel. A cancellation and an end are counted once each, when they happen.
 */
export function subscriptionDeltas(subscription: SubscriptionFacts): DeltaRow[] {
  const { startedAt, endedAt, canceledAt } = subscription;
  if (!startedAt) return [];
  const changes: Array<[Date, MetricValues]> = [];
  const add = (at: Date, values: MetricValues) => changes.push([at, values]);
  const committedEnd = earliest(endedAt, canceledAt);
  add(startedAt, { active_subscriptions: 1 });
  if (endedAt) add(endedAt, { active_subscriptions: -1, churned_subscriptions: 1 });
  if (!committedEnd || committedEnd > startedAt) {
    add(startedAt, { committed_subscriptions: 1 });
    if (committedEnd) add(committedEnd, { committed_subscriptions: -1 });
  }
  if (canceledAt) add(canceledAt, { canceled_subscriptions: 1 });
  const paidFrom = subscription.trialEnd && subscription.trialEnd > startedAt ? subscription.trialEnd : startedAt;
  const mrr = monthlyAmount(subscription.amount, subscription.recurringInterval, subscription.recurringIntervalCount);
  const paying = subscription.status !== 'trialing' && subscription.status !== 'incomplete';
  if (paying && mrr !== 0 && (!endedAt || endedAt > paidFrom)) {
    add(paidFrom, { monthly_recurring_revenue: mrr });
    if (endedAt) add(endedAt, { monthly_recurring_revenue: -mrr });
    if (!committedEnd || committedEnd > paidFrom) {
      add(paidFrom, { committed_monthly_recurring_revenue: mrr });
      if (committedEnd) add(committedEnd, { committed_monthly_recurring_revenue: -mrr });
    }
  }
  const byHour = new Map<number, MetricValues>();
  for (const [at, values] of changes) {
    const hour = hourOf(at);
    byHour.set(hour, addValues(byHour.get(hour) ?? {}, values));
  }
  return [...byHour].map(([hour, values]) => ({
    sourceId: subscription.id,
    organizationId: subscription.organizationId,
    customerId: subscription.customerId,
    currency: subscription.currency,
    productId: subscription.productId,
    billingType: 'recurring' as const,
    hour,
    values,
  }));
}

/**
 * Whether states of a subscription all contribute the same rows: changes between them (a renewal's new period) leave
 * its rollups as they are.
 */
export function sameContributions(first: SubscriptionFacts, ...others: SubscriptionFacts[]): boolean {
  const rows = JSON.stringify(subscriptionDeltas(first));
  return others.every((other) => JSON.stringify(subscriptionDeltas(other)) === rows);
}

/**
 * A checkout counts in the hour it was created; a succeeded one counts there once more, as a success. Checkouts are
 * not the customer's (most begin before the buyer is known), so a customer filter leaves them out.
 */
export function checkoutDelta(checkout: CheckoutFacts, column: 'checkouts' | 'succeeded_checkouts'): DeltaRow {
  return {
    sourceId: checkout.id,
    organizationId: checkout.organizationId,
    customerId: '',
    currency: checkout.currency,
    productId: checkout.productId,
    billingType: checkout.recurring ? 'recurring' : 'one_time',
    hour: hourOf(checkout.createdAt),
    values: { [column]: 1 },
  };
}

export function addValues(into: MetricValues, values: MetricValues): MetricValues {
  for (const [column, value] of Object.entries(values) as Array<[MetricColumn, number]>)
    into[column] = (into[column] ?? 0) + value;
  return into;
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a < b ? a : b;
}
