import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { toDateOrNull } from '../database/index.js';
import type { SubscriptionFacts } from './contributions.js';

// The subscriptions the rollups are rebuilt from, read page by page in id order (keyset), one organization at a time
// (orders and checkouts are folded in by the database itself: rebuild-repository.ts).

/** Rows after the last id of the previous page; none before the first ('' is no uuid to PostgreSQL). */
function afterId(after: string, column: string) {
  return (query: Knex.QueryBuilder) => {
    if (after) void query.where(column, '>', after);
  };
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
