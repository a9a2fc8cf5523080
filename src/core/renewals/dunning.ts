import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { MailService } from '../mail/service.js';
import { ordersRepository, type Order } from '../orders/repository.js';
import { isRecoverableDecline } from '../payments/declines.js';
import type { ChargeResult } from '../payments/processor.js';
import type { EmbedOptions } from '../products/embedded.js';
import { schedule, unschedule } from '../scheduler/schedule.js';
import { CYCLE_JOB } from '../subscriptions/cycle-hooks.js';
import { applyLifecycle } from '../subscriptions/lifecycle.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import type { PaymentMethod } from '../payment-methods/repository.js';
import type { Customer } from '../customers/repository.js';
import { chargeJob } from './charge-job.js';
import { pastDueMail } from './mail.js';
import { scheduleBenefitsRevocation } from './revocation.js';

/**
 * Dunning (polar-contract §3.3): the first failed renewal makes the subscription `past_due` (`subscription.updated`,
 * `subscription.past_due`, a mail to the customer); the same pending order is charged again on days 2, 7, 14 and 21
 * after `past_due_at` (Polar's 2, 5, 7, 7-day intervals); a decline no retry can cure (a lost card), or the last
 * retry failing, revokes the subscription. Retry times hang on `past_due_at`, not on the number of attempts, so an
 * extra attempt (a new card) does not move them.
 */
export const RETRY_DAYS = [2, 7, 14, 21] as const;

/** The next retry after `now`, or null when the last one is past. */
export function nextRetryAt(pastDueAt: Date, now: Date): Date | null {
  for (const days of RETRY_DAYS) {
    const at = new Date(pastDueAt.getTime() + days * DAY);
    if (at > now) return at;
  }
  return null;
}

export async function chargeFailed(
  trx: Db,
  order: Order,
  result: Extract<ChargeResult, { status: 'failed' }>,
  now: Date,
  deps: { mail: MailService; options: EmbedOptions },
): Promise<void> {
  if (!order.subscriptionId) return;
  const repo = subscriptionsRepository(trx);
  const current = await repo.lock(order.subscriptionId);
  if (!current || current.endedAt) return;
  const pastDueAt = current.pastDueAt ?? now;
  const retryAt = isRecoverableDecline(result.declineReason) ? nextRetryAt(pastDueAt, now) : null;
  if (!retryAt) {
    await revokeUnpaid(trx, current, now, deps.options);
    return;
  }
  if (current.status !== 'past_due') {
    const next: Subscription = { ...current, status: 'past_due', pastDueAt, modifiedAt: now };
    await repo.save(next);
    await announceLifecycle(trx, current, next, now, deps.options);
    const customer = await customersRepository(trx).findById(current.customerId);
    if (customer?.email)
      await deps.mail.enqueue(trx, {
        kind: 'subscription-past-due',
        to: customer.email,
        userId: null,
        content: pastDueMail({ name: customer.name, amount: order.totalAmount, currency: order.currency, retryAt }),
      });
  }
  await schedule(trx, chargeJob(order.id, retryAt), now);
}

/** Retries ran out or cannot help: the subscription ends now (`canceled`, `ended_at`), its benefits after the grace. */
async function revokeUnpaid(trx: Db, current: Subscription, now: Date, options: EmbedOptions): Promise<void> {
  const next = { ...applyLifecycle(current, 'revoke', {}, now), pastDueAt: current.pastDueAt };
  await subscriptionsRepository(trx).save(next);
  await unschedule(trx, CYCLE_JOB, next.id);
  const revokeAt = await scheduleBenefitsRevocation(trx, next, now, options);
  await announceLifecycle(trx, current, next, now, options, { benefitsRevokeAt: revokeAt });
}

/**
 * A customer set a new default card (portal): their past-due subscriptions' pending orders are charged again at once
 * (Polar's `schedule_retry_for_past_due_orders`), on the card they moved to. Called after that change committed.
 */
export function retryPastDueOnNewDefault(deps: { db: Db; clock: Clock }) {
  return async (customer: Customer, _method: PaymentMethod): Promise<void> => {
    const now = deps.clock.now();
    await transaction(deps.db, async (trx) => {
      const subscriptions = await subscriptionsRepository(trx).forCustomer(customer.id, ['past_due']);
      const orders = await ordersRepository(trx).pendingOfSubscriptions(subscriptions.map((s) => s.id));
      for (const order of orders) await schedule(trx, chargeJob(order.id, now), now);
    });
  };
}
