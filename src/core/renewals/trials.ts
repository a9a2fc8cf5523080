import { customersRepository } from '../customers/repository.js';
import type { Transaction } from '../database/index.js';
import type { MailService } from '../mail/service.js';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import { findProduct } from '../products/read.js';
import type { EmbedOptions } from '../products/embedded.js';
import { schedule, unschedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { CYCLE_JOB } from '../subscriptions/cycle-hooks.js';
import { cycleJob, TRIAL_REMINDER_JOB, trialReminderJob } from '../subscriptions/cycle-job.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import { runCycle, type CycleDeps } from './cycle.js';
import { trialEndingMail } from './mail.js';

/**
 * `PATCH /v1/subscriptions/{id}` with `trial_end` (polar-contract §3.5): a time in the future extends a trial, or adds
 * one to an active subscription (status `trialing`, billing postponed to that time, periods counted from it); `"now"`
 * ends a trial and runs its cycle at once, in the same transaction (the bill and its charge job).
 */
export function trialChanges(deps: CycleDeps) {
  return async function changeTrial(
    trx: Transaction,
    id: string,
    trialEnd: Date | 'now',
    now: Date,
  ): Promise<Subscription> {
    const repo = subscriptionsRepository(trx);
    const current = await repo.lock(id);
    if (!current) throw resourceNotFound();
    const loc = ['body', 'trial_end'];
    if (current.endedAt || current.cancelAtPeriodEnd || !['trialing', 'active'].includes(current.status))
      throw fieldError(loc, 'Only an active or trialing subscription that is not set to cancel can change its trial.');
    if (trialEnd === 'now' && current.status !== 'trialing') throw fieldError(loc, 'The subscription is not trialing.');
    if (trialEnd !== 'now' && trialEnd <= now) throw fieldError(loc, 'The trial end must be in the future.');
    const end = trialEnd === 'now' ? now : trialEnd;
    const next: Subscription = {
      ...current,
      status: 'trialing',
      trialStart: current.status === 'trialing' ? current.trialStart : now,
      trialEnd: end,
      currentPeriodEnd: end,
      // Periods are counted from the trial's end (renewals/cycle.ts anchorOf): none billed since.
      billedPeriods: 0,
      modifiedAt: now,
    };
    await repo.save(next);
    await unschedule(trx, CYCLE_JOB, id);
    await unschedule(trx, TRIAL_REMINDER_JOB, id);
    await schedule(trx, cycleJob(next), now);
    const reminder = trialReminderJob(next, now);
    if (reminder) await schedule(trx, reminder, now);
    await announceLifecycle(trx, current, next, now, deps.options);
    if (trialEnd === 'now') await runCycle(trx, id, now, deps);
    return (await repo.findById(id)) ?? next;
  };
}

export type TrialChanges = ReturnType<typeof trialChanges>;

/** Mails the customer before their trial ends, if it still ends as it did when the reminder was scheduled. */
export function trialReminderHandler(deps: { mail: MailService; options: EmbedOptions }): JobHandler {
  return async (trx, job, now) => {
    const subscription = await subscriptionsRepository(trx).findById(job.subjectId);
    if (!subscription || subscription.endedAt || subscription.status !== 'trialing' || !subscription.trialEnd) return;
    if (subscription.trialEnd <= now) return;
    const [customer, product] = [
      await customersRepository(trx).findById(subscription.customerId),
      await findProduct(trx, subscription.productId, deps.options.readCache),
    ];
    if (!customer?.email) return;
    await deps.mail.enqueue(trx, {
      kind: 'subscription-trial-ending',
      to: customer.email,
      userId: null,
      content: trialEndingMail({
        name: customer.name,
        productName: product?.name ?? 'your subscription',
        trialEnd: subscription.trialEnd,
      }),
    });
  };
}
