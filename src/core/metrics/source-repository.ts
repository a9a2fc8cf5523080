import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';
import type { CheckoutFacts, OrderFacts, SubscriptionFacts } from './contributions.js';

// The tables the rollups are rebuilt from, read page by page in id order (keyset), one organization at a time.

/** Rows after the last id of the previous page; none before the first ('' is no uuid to PostgreSQL). */
function afterId(after: string, column: string) {
  return (query: Knex.QueryBuilder) => {
    if (after) void query.where(column, '>', after);
  };
}

export async function ordersPage(db: Db, organizationId: string, after: string, limit: number): Promise<OrderFacts[]> {
  const rows = await db('orders')
    .where('organization_id', organizationId)
    .modify(afterId(after, 'id'))
    .orderBy('id')
    .limit(limit)
    .select(
      'id',
      'customer_id',
      'product_id',
      'subscription_id',
      'status',
      'billing_reason',
      'net_amount',
      'refunded_amount',
      'currency',
      'created_at',
    );
  return rows.map((row: Record<string, unknown>) => ({
    id: String(row.id),
    organizationId,
    customerId: String(row.customer_id),
    productId: (row.product_id as string | null) ?? null,
    subscriptionId: (row.subscription_id as string | null) ?? null,
    status: String(row.status),
    billingReason: String(row.billing_reason),
    netAmount: Number(row.net_amount),
    refundedAmount: Number(row.refunded_amount),
    currency: String(row.currency).toLowerCase(),
    createdAt: toDate(row.created_at),
  }));
}

export async function subscriptionsPage(
  db: Db,
  organizationId: string,
  after: string,
  limit: number,
): Promise<SubscriptionFacts[]> {
  const rows = await db('subscriptions')
    .where('organization_id', organizationId)
    .modify(afterId(after, 'id'))
    .orderBy('id')
    .limit(limit)
    .select(
      'id',
      'customer_id',
      'product_id',
      'status',
      'amount',
      'currency',
      'recurring_interval',
      'recurring_interval_count',
      'started_at',
      'trial_end',
      'canceled_at',
      'ended_at',
    );
  return rows.map((row: Record<string, unknown>) => ({
    id: String(row.id),
    organizationId,
    customerId: String(row.customer_id),
    productId: String(row.product_id),
    status: String(row.status),
    amount: Number(row.amount),
    currency: String(row.currency).toLowerCase(),
    recurringInterval: String(row.recurring_interval),
    recurringIntervalCount: Number(row.recurring_interval_count) || 1,
    startedAt: toDateOrNull(row.started_at),
    trialEnd: toDateOrNull(row.trial_end),
    canceledAt: toDateOrNull(row.canceled_at),
    endedAt: toDateOrNull(row.ended_at),
  }));
}

export async function checkoutsPage(
  db: Db,
  organizationId: string,
  after: string,
  limit: number,
): Promise<Array<CheckoutFacts & { succeeded: boolean }>> {
  const rows = await db('checkouts')
    .leftJoin('products', 'products.id', 'checkouts.product_id')
    .where('checkouts.organization_id', organizationId)
    .modify(afterId(after, 'checkouts.id'))
    .orderBy('checkouts.id')
    .limit(limit)
    .select(
      'checkouts.id',
      'checkouts.product_id',
      'checkouts.status',
      'checkouts.currency',
      'checkouts.created_at',
      'products.recurring_interval',
    );
  return rows.map((row: Record<string, unknown>) => ({
    id: String(row.id),
    organizationId,
    productId: String(row.product_id),
    recurring: row.recurring_interval !== null && row.recurring_interval !== undefined,
    currency: String(row.currency).toLowerCase(),
    createdAt: toDate(row.created_at),
    succeeded: row.status === 'succeeded',
  }));
}
