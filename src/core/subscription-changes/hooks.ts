import type { ReadCache } from '../cache/read-cache.js';
import type { EmbedOptions } from '../products/embedded.js';
import { findPrice } from '../products/read.js';
import { schedule } from '../scheduler/schedule.js';
import { pendingUpdatesRepository, prorationEntriesRepository } from '../subscriptions/changes-repository.js';
import type { CycleHook, CycleItem } from '../subscriptions/cycle-hooks.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import { RESUME_JOB } from './pause.js';
import { changesInterval, onPlan, planOf } from './target.js';

/**
 * What plan changes and pauses do at a period boundary, as the renewal cycle's hooks (subscriptions/cycle-hooks.ts).
 * Register them in this order: pause first (a subscription that pauses bills nothing, and what else waits stays
 * waiting for the first cycle after it resumes), then the pending update (so the cycle bills the new plan), then the
 * proration entries. Where a hook restarts the period count (`periodAnchor`), the cycle must count from it.
 */

/** A subscription set to pause at the period end pauses now; the cycle bills nothing. */
export function pauseCycleHook(options: EmbedOptions): CycleHook {
  return async (trx, subscription, at) => {
    if (!subscription.pauseAtPeriodEnd || subscription.status === 'paused') return {};
    const next: Subscription = {
      ...subscription,
      status: 'paused',
      pausedAt: at,
      pauseAtPeriodEnd: false,
      modifiedAt: at,
    };
    await subscriptionsRepository(trx).save(next);
    if (next.resumesAt) await schedule(trx, { kind: RESUME_JOB, subjectId: next.id, dueAt: next.resumesAt }, at);
    await announceLifecycle(trx, subscription, next, at, options);
    return { stop: true };
  };
}

/**
 * A `next_period` change waiting for this boundary switches the plan (product, price, amount, interval); the cycle
 * then bills the new plan for the new period and announces the subscription as it left it.
 */
export function pendingUpdateCycleHook(readCache: ReadCache): CycleHook {
  return async (trx, subscription, at) => {
    const pending = await pendingUpdatesRepository(trx).find(subscription.id);
    if (!pending || pending.appliesAt > at) return {};
    const found = await findPrice(trx, pending.productPriceId, readCache);
    await pendingUpdatesRepository(trx).clear(subscription.id);
    // A product deleted since leaves the subscription where it was; an archived one still applies (Polar's too).
    if (!found) return {};
    const current = (await subscriptionsRepository(trx).findById(subscription.id)) ?? subscription;
    const next = onPlan(current, await planOf(trx, current, found.product, found.price), at);
    // A new interval counts its periods from the one starting now (none of it billed yet: the cycle bills it).
    if (changesInterval(current, { product: found.product })) {
      next.periodAnchor = current.currentPeriodEnd;
      next.billedPeriods = 0;
    }
    await subscriptionsRepository(trx).save(next);
    return {};
  };
}

/**
 * The proration entries a `prorate` change (or an invoiced one whose net was a credit) left: lines of this cycle's
 * order, each carried once. Their sum may be negative; the cycle floors its order at 0 and carries the rest of a
 * credit to the next one.
 */
export const prorationCycleHook: CycleHook = async (trx, subscription, at) => {
  const repo = prorationEntriesRepository(trx);
  const waiting = await repo.unbilled(subscription.id);
  if (waiting.length === 0) return {};
  await repo.markBilled(
    waiting.map((entry) => entry.id),
    at,
    null,
  );
  return { items: waiting.map((entry): CycleItem => ({ label: entry.label, amount: entry.amount })) };
};
