import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { ordersRepository } from '../orders/repository.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize } from '../polar-api/actor.js';
import { resourceNotFound } from '../polar-api/errors.js';
import type { EmbedOptions } from '../products/embedded.js';
import { schedule } from '../scheduler/schedule.js';
import { loadSubscriptionWires } from '../subscriptions/loaders.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import type { SubscriptionWire } from '../subscriptions/schemas.js';
import { chargeJob } from './charge-job.js';

/**
 * A merchant's "retry the charge now" on a past-due subscription (Till's `POST /v1/subscriptions/{id}/retry-payment`,
 * as the revenue dashboard offers): each unpaid renewal order gets a charge attempt due at once, run by the scheduler
 * like any dunning retry, so its outcome (paid and active again, or still past due) follows the dunning rules.
 */
export function createPaymentRetry(deps: { db: Db; clock: Clock; options: EmbedOptions }) {
  return async (actor: MerchantActor, subscriptionId: string): Promise<SubscriptionWire> => {
    const now = deps.clock.now();
    return transaction(deps.db, async (trx) => {
      const subscription = await subscriptionsRepository(trx).lock(subscriptionId);
      if (!subscription) throw resourceNotFound();
      authorize(actor, subscription.organizationId, 'write');
      if (subscription.status !== 'past_due')
        throw new DomainError(409, 'SubscriptionNotPastDue', 'Only a past-due subscription has a charge to retry.');
      const orders = await ordersRepository(trx).pendingOfSubscriptions([subscription.id]);
      for (const order of orders) await schedule(trx, chargeJob(order.id, now), now);
      return (await loadSubscriptionWires(trx, [subscription], deps.options))[0]!;
    });
  };
}

export type PaymentRetry = ReturnType<typeof createPaymentRetry>;
