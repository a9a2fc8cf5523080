import { isUuid } from '../polar-api/schemas.js';
import type { Db, Deferred } from '../database/index.js';
import { transaction } from '../database/index.js';
import {
  type CheckoutFacts,
  checkoutDelta,
  type DeltaRow,
  type OrderFacts,
  orderDeltas,
  type SubscriptionFacts,
  subscriptionDeltas,
} from './contributions.js';
import {
  addCheckoutsToBuckets,
  bucketsFromSourceDeltas,
  daysFromBuckets,
  insertOrderDeltas,
} from './rebuild-repository.js';
import { clearRollups, deferApplyDeltas, deferInsertSourceDeltas } from './repository.js';
import { subscriptionsPage } from './source-repository.js';

/** An outbox event as the rollups read it (kernel/outbox's OutboxEvent, without importing the kernel). */
export interface RollupEvent {
  organizationId: string;
  type: string;
  data: unknown;
  /** The writer knows the resource contributes what it did before (see OutboxEvent). */
  sameContributions?: boolean;
}

type Wire = Record<string, unknown>;

const date = (value: unknown): Date | null => (typeof value === 'string' ? new Date(value) : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const amount = (value: unknown): number => (typeof value === 'number' ? value : 0);

function orderFacts(organizationId: string, order: Wire): OrderFacts {
  return {
    id: String(order.id),
    organizationId,
    customerId: String(order.customer_id),
    productId: text(order.product_id),
    subscriptionId: text(order.subscription_id),
    status: String(order.status),
    billingReason: String(order.billing_reason),
    netAmount: amount(order.net_amount),
    refundedAmount: amount(order.refunded_amount),
    currency: String(order.currency).toLowerCase(),
    createdAt: date(order.created_at)!,
  };
}

function subscriptionFacts(organizationId: string, subscription: Wire): SubscriptionFacts {
  return {
    id: String(subscription.id),
    organizationId,
    customerId: String(subscription.customer_id),
    productId: String(subscription.product_id),
    status: String(subscription.status),
    amount: amount(subscription.amount),
    currency: String(subscription.currency).toLowerCase(),
    recurringInterval: String(subscription.recurring_interval),
    recurringIntervalCount: amount(subscription.recurring_interval_count) || 1,
    startedAt: date(subscription.started_at),
    trialEnd: date(subscription.trial_end),
    canceledAt: date(subscription.canceled_at),
    endedAt: date(subscription.ended_at),
  };
}

function checkoutFacts(organizationId: string, checkout: Wire): CheckoutFacts {
  const product = (checkout.product ?? {}) as Wire;
  return {
    id: String(checkout.id),
    organizationId,
    productId: String(checkout.product_id),
    recurring: product.is_recurring === true,
    currency: String(checkout.currency).toLowerCase(),
    createdAt: date(checkout.created_at)!,
  };
}

/**
 * The rollup writes for events about to be recorded, to run in the same transaction, after the change and in the
 * order given. Orders and subscriptions are replaced as a whole by their latest payload in the batch, so a renewal,
 * a refund or a cancellation is read from the payload alone; a source whose first event here is its creation has
 * nothing to take back. A checkout adds its count when created and its success once, when it succeeds.
 */
export function deferRollups(trx: Db, events: readonly RollupEvent[]): Deferred[] {
  const latest = new Map<string, { kind: 'order' | 'subscription'; organizationId: string; data: Wire }>();
  const created = new Set<string>();
  const seen = new Set<string>();
  const changed = new Set<string>();
  const additive: DeltaRow[] = [];
  for (const event of events) {
    const data = event.data as Wire;
    // Only resources Till wrote count: every order, subscription and checkout has a UUID (events recorded by hand,
    // as some tests do, may carry anything).
    if (!isUuid(String(data.id))) continue;
    const [kind, action] = event.type.split('.');
    if (kind === 'checkout') {
      if (action === 'created') additive.push(checkoutDelta(checkoutFacts(event.organizationId, data), 'checkouts'));
      else if (action === 'updated' && data.status === 'succeeded')
        additive.push(checkoutDelta(checkoutFacts(event.organizationId, data), 'succeeded_checkouts'));
      continue;
    }
    if (kind !== 'order' && kind !== 'subscription') continue;
    const id = String(data.id);
    if (!seen.has(id) && action === 'created') created.add(id);
    seen.add(id);
    if (!event.sameContributions) changed.add(id);
    latest.set(id, { kind, organizationId: event.organizationId, data });
  }
  // A source every event of which says it contributes what it did keeps its rows.
  for (const id of latest.keys()) if (!changed.has(id)) latest.delete(id);
  if (latest.size === 0 && additive.length === 0) return [];
  const rows: DeltaRow[] = [];
  for (const source of latest.values()) {
    rows.push(
      ...(source.kind === 'order'
        ? orderDeltas(orderFacts(source.organizationId, source.data))
        : subscriptionDeltas(subscriptionFacts(source.organizationId, source.data))),
    );
  }
  const replacing = [...latest.keys()].filter((id) => !created.has(id));
  return deferApplyDeltas(trx, replacing, rows, additive);
}

const PAGE = 5000;

/**
 * An organization's rollups computed again from its orders, subscriptions and checkouts (for data written before the
 * rollups existed, and to check them), in one transaction. Orders and checkouts are folded in by the database, set by
 * set; subscriptions (whose rules need dates compared) page by page through contributions.ts; then the buckets are the
 * sums of the source rows, and the days the sums of the hours.
 */
export async function rebuildRollups(db: Db, organizationId: string): Promise<void> {
  await transaction(db, async (trx) => {
    await clearRollups(trx, organizationId);
    await insertOrderDeltas(trx, organizationId);
    for (let after = ''; ;) {
      const subscriptions = await subscriptionsPage(trx, organizationId, after, PAGE);
      if (subscriptions.length === 0) break;
      for (const statement of deferInsertSourceDeltas(trx, subscriptions.flatMap(subscriptionDeltas))) await statement;
      after = subscriptions[subscriptions.length - 1].id;
    }
    await bucketsFromSourceDeltas(trx, organizationId);
    await addCheckoutsToBuckets(trx, organizationId);
    await daysFromBuckets(trx, organizationId);
  });
}
