import type { Db } from '../database/index.js';
import type { CrashHook } from '../kernel/crash.js';
import { ordersRepository } from '../orders/repository.js';
import { recordChargeAttempt } from '../payments/attempts.js';
import type { ChargeResult, PaymentProcessor } from '../payments/processor.js';
import type { JobRequest } from '../scheduler/repository.js';
import { scheduledJobsRepository } from '../scheduler/repository.js';
import type { PreparedJobHandler } from '../scheduler/service.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { MailService } from '../mail/service.js';
import { markOrderPaid } from './settle.js';
import { chargeFailed } from './dunning.js';

/**
 * Charging a renewal order: one job per attempt (the first right after the cycle, dunning retries later, an immediate
 * retry when the customer sets a new card), subject = the order. The charge goes out before the job's transaction
 * with the key `renewal:<order id>:<attempt's job id>`, derived from rows, so a daemon killed between the charge
 * and its record runs the job again with the same key and the processor answers with the first charge instead of
 * making a second. Two attempts of one order never run side by side (the second waits for the first's claim).
 */
export const CHARGE_JOB = 'subscription.order_charge';

export function chargeJob(orderId: string, dueAt: Date): JobRequest {
  return { kind: CHARGE_JOB, subjectId: orderId, dueAt };
}

/** One key per attempt: the job's row is the attempt, kept (with its id) until its outcome is written. */
export function chargeReference(orderId: string, jobId: string): string {
  return `renewal:${orderId}:${jobId}`;
}

export interface ChargeDeps {
  db: Db;
  processor: PaymentProcessor;
  mail: MailService;
  options: EmbedOptions;
  crashAt: CrashHook;
}

export function chargeHandler(deps: ChargeDeps): PreparedJobHandler<ChargeResult | null> {
  const { db, processor } = deps;
  return {
    async prepare(job, now) {
      const order = await ordersRepository(db).findById(job.subjectId);
      if (!order || order.status !== 'pending' || !order.subscriptionId) return null;
      const subscription = await subscriptionsRepository(db).findById(order.subscriptionId);
      // An ended subscription's orders are not charged, except its final usage order (written at or after the end).
      if (!subscription || (subscription.endedAt && order.createdAt < subscription.endedAt)) return null;
      if (await scheduledJobsRepository(db).otherClaimed(CHARGE_JOB, order.id, job.id, now))
        throw new Error(`another charge of order ${order.id} is in flight; this attempt waits for it`);
      const reference = chargeReference(order.id, job.id);
      const request = { amount: order.totalAmount, currency: order.currency, reference };
      // A subscription bought before saved methods existed has none: a decline dunning does not retry.
      const result = subscription.paymentMethodReference
        ? await processor.chargeSavedMethod(subscription.paymentMethodReference, request)
        : missingMethod(reference);
      deps.crashAt('renewal.charged');
      return result;
    },

    async run(trx, job, now, result) {
      if (!result) return;
      const order = await ordersRepository(trx).lock(job.subjectId);
      if (!order || order.status !== 'pending') return;
      await recordChargeAttempt(trx, {
        organizationId: order.organizationId,
        processor: processor.name,
        amount: order.totalAmount,
        currency: order.currency,
        orderId: order.id,
        customerId: order.customerId,
        result,
        at: now,
      });
      if (result.status === 'succeeded') await markOrderPaid(trx, order, result.processorReference, now, deps.options);
      else await chargeFailed(trx, order, result, now, deps);
    },
  };
}

export function missingMethod(reference: string): ChargeResult {
  return {
    status: 'failed',
    processorReference: `none:${reference}`,
    card: null,
    declineReason: 'payment_method_missing',
    declineMessage: 'The subscription has no saved payment method.',
  };
}
