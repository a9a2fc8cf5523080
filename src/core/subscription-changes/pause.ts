import { allocateInvoiceNumber } from '../checkouts/fulfil.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { badRequest, fieldError } from '../polar-api/errors.js';
import type { EmbedOptions } from '../products/embedded.js';
import { findPrice } from '../products/read.js';
import { schedule, unschedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { CYCLE_JOB } from '../subscriptions/cycle-hooks.js';
import { alreadyCanceled } from '../subscriptions/lifecycle.js';
import { addInterval, type Interval } from '../subscriptions/periods.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import { chargeNow, giveBack, taxOf, writePaidOrder, type Charged } from './billing.js';
import { inactiveSubscription, subscriptionLocked, type ChangeDeps } from './plan.js';
import { planOf } from './target.js';

/**
 * Pause and resume (Polar's SubscriptionPause / SubscriptionResume). A paused subscription does not renew, is not
 * billed, and (announced as `subscription.paused`) loses its benefits until it resumes. Nothing of the period it was
 * paused in is given back (Stripe's pause_collection does the same). Resuming starts a new period at once and charges
 * it then, as Polar's SubscriptionResume says: by hand, the charge is made before anything changes (a decline is a
 * 402 and it stays paused); at `resumes_at`, the resume job opens a period that ends at once and leaves it to the
 * renewal cycle, due at that instant, so the charge goes through the cycle's idempotent charge and its dunning.
 */

/** The scheduled job that resumes a paused subscription at its `resumes_at`. */
export const RESUME_JOB = 'subscription.resume';

function parseResumesAt(value: string | null | undefined, after: Date): Date | null {
  if (value == null) return null;
  const at = new Date(value);
  if (at <= after)
    throw fieldError(['body', 'resumes_at'], `resumes_at must be after ${after.toISOString()}.`, 'value_error');
  return at;
}

/** Paused now, from `at`; its own cycle taken back and its automatic resume (if any) scheduled. */
async function pauseNow(trx: Db, current: Subscription, resumesAt: Date | null, at: Date): Promise<Subscription> {
  const next: Subscription = {
    ...current,
    status: 'paused',
    pausedAt: at,
    pauseAtPeriodEnd: false,
    resumesAt,
    modifiedAt: at,
  };
  await subscriptionsRepository(trx).save(next);
  await unschedule(trx, CYCLE_JOB, next.id);
  if (resumesAt) await schedule(trx, { kind: RESUME_JOB, subjectId: next.id, dueAt: resumesAt }, at);
  return next;
}

export async function pause(
  deps: ChangeDeps,
  current: Subscription,
  input: { pause_at_period_end: boolean; resumes_at?: string | null },
): Promise<Subscription> {
  const at = deps.clock.now();
  return transaction(deps.db, async (trx) => {
    const locked = (await subscriptionsRepository(trx).lock(current.id)) ?? current;
    if (locked.endedAt || locked.cancelAtPeriodEnd) throw alreadyCanceled();
    let next: Subscription;
    if (!input.pause_at_period_end && locked.pauseAtPeriodEnd) {
      next = { ...locked, pauseAtPeriodEnd: false, resumesAt: null, modifiedAt: at };
      await subscriptionsRepository(trx).save(next);
    } else {
      if (locked.status === 'paused') throw badRequest('This subscription is already paused.');
      if (locked.status !== 'active') throw inactiveSubscription();
      if (input.pause_at_period_end) {
        const resumesAt = parseResumesAt(input.resumes_at, locked.currentPeriodEnd);
        next = { ...locked, pauseAtPeriodEnd: true, resumesAt, modifiedAt: at };
        await subscriptionsRepository(trx).save(next);
      } else {
        next = await pauseNow(trx, locked, parseResumesAt(input.resumes_at, at), at);
      }
    }
    await announceLifecycle(trx, locked, next, at, deps.options);
    return next;
  });
}

/**
 * Active again from `at`, in a period that starts then and ends `end`, with the cycle due at its end; the period
 * count starts again at `at`, with `billed` periods of it paid for.
 */
async function reopen(trx: Db, current: Subscription, at: Date, end: Date, billed: number): Promise<Subscription> {
  const next: Subscription = {
    ...current,
    status: 'active',
    periodAnchor: at,
    billedPeriods: billed,
    pausedAt: null,
    resumesAt: null,
    pauseAtPeriodEnd: false,
    currentPeriodStart: at,
    currentPeriodEnd: end,
    modifiedAt: at,
  };
  await subscriptionsRepository(trx).save(next);
  await unschedule(trx, RESUME_JOB, next.id);
  await schedule(trx, { kind: CYCLE_JOB, subjectId: next.id, dueAt: end }, at);
  return next;
}

function nextEnd(subscription: Subscription, at: Date): Date {
  return addInterval(at, subscription.recurringInterval as Interval, subscription.recurringIntervalCount);
}

/** PATCH {resume: true}: a new period starts now and its price is charged now (no charge for a free plan). */
export async function resume(deps: ChangeDeps, current: Subscription): Promise<Subscription> {
  const at = deps.clock.now();
  if (current.status !== 'paused') throw badRequest('This subscription is not paused.');
  // A period of the plan as its price says (the cycle leaves its last order's net in `amount`).
  const plan = await findPrice(deps.db, current.productPriceId, deps.readCache);
  const amount = plan ? (await planOf(deps.db, current, plan.product, plan.price)).amount : current.amount;
  const tax = await taxOf(deps.db, current, amount);
  const charged: Charged | null = amount > 0 ? await chargeNow(deps, current, amount + tax, at) : null;
  try {
    const invoiceNumber = charged ? await allocateInvoiceNumber(deps.db, current.organizationId, deps.readCache) : null;
    return await transaction(deps.db, async (trx) => {
      const locked = await subscriptionsRepository(trx).lock(current.id);
      if (!locked || locked.status !== 'paused' || locked.productPriceId !== current.productPriceId)
        throw subscriptionLocked();
      const next = await reopen(trx, locked, at, nextEnd(locked, at), 1);
      await announceLifecycle(trx, locked, next, at, deps.options);
      if (charged)
        await writePaidOrder(trx, {
          subscription: next,
          charged,
          processor: deps.processor.name,
          billingReason: 'subscription_cycle',
          items: [{ label: plan?.product.name ?? 'Subscription', amount }],
          taxAmount: tax,
          invoiceNumber: invoiceNumber!,
          at,
          options: deps.options,
        });
      return next;
    });
  } catch (error) {
    if (charged) await giveBack(deps, current, charged, amount + tax);
    throw error;
  }
}

/** The resume job: a subscription still paused, whose resume time has come, resumes and the cycle bills it now. */
export function resumeHandler(options: EmbedOptions): JobHandler {
  return async (trx, job, now) => {
    const current = await subscriptionsRepository(trx).lock(job.subjectId);
    if (!current || current.status !== 'paused' || !current.resumesAt || current.resumesAt > now) return;
    const next = await reopen(trx, current, now, now, 0);
    await announceLifecycle(trx, current, next, now, options);
  };
}
