import { recordStateChanged } from '../customers/state.js';
import type { Db } from '../database/index.js';
import { cycleGrants } from '../grant-triggers/triggers.js';
import { recordEvents } from '../kernel/outbox.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order } from '../orders/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { activeSubscriptionsOf } from '../subscriptions/state.js';
import { announceLifecycle } from '../subscriptions/transitions.js';

/**
 * A renewal order paid (by its charge, or at once when nothing is due): `order.updated`, `order.paid`, its grants
 * cycled, then the subscription. A past-due one is `active` again (`subscription.updated`, `subscription.active`), which also sends
 * `customer.state_changed`; otherwise that comes alone, last, as in Polar's renewal sequence.
 */
export async function markOrderPaid(
  trx: Db,
  order: Order,
  paymentReference: string | null,
  at: Date,
  options: EmbedOptions,
): Promise<void> {
  const paid: Order = { ...order, status: 'paid', paymentReference, modifiedAt: at };
  await ordersRepository(trx).markPaid(order.id, paymentReference, at);
  const [data] = await loadOrderWires(trx, [paid], options);
  await recordEvents(trx, [
    { organizationId: order.organizationId, type: 'order.updated', data, at },
    { organizationId: order.organizationId, type: 'order.paid', data, at },
  ]);
  // A renewal paid renews what it grants (`benefit_grant.cycled`).
  if (order.subscriptionId && order.billingReason === 'subscription_cycle')
    await cycleGrants(trx, order.subscriptionId, order.id, at);
  const repo = subscriptionsRepository(trx);
  const current = order.subscriptionId ? await repo.lock(order.subscriptionId) : null;
  if (current?.status === 'past_due' && !current.endedAt && !(await stillOwes(trx, current, order.id))) {
    const next: Subscription = { ...current, status: 'active', pastDueAt: null, modifiedAt: at };
    await repo.save(next);
    await announceLifecycle(trx, current, next, at, options);
    return;
  }
  await recordStateChanged(trx, order.customerId, at, activeSubscriptionsOf);
}

/** Whether another of the subscription's orders still waits for its payment (it stays past due until none does). */
async function stillOwes(trx: Db, subscription: Subscription, paidOrderId: string): Promise<boolean> {
  const pending = await ordersRepository(trx).pendingOfSubscriptions([subscription.id]);
  return pending.some((order) => order.id !== paidOrderId);
}
