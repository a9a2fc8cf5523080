import { DomainError } from '../kernel/errors.js';
import type { Db } from '../database/index.js';
import type { JobRequest } from '../scheduler/repository.js';
import { schedule, unschedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import type { EmbedOptions } from '../products/embedded.js';
import type { Subscription } from './repository.js';
import type { CancellationReason } from './schemas.js';
import { subscriptionsRepository } from './repository.js';
import { announceLifecycle } from './transitions.js';

/**
 * Cancelling, uncancelling and revoking a subscription (Polar's rules, polar-contract §3.4), shared by the merchant
 * API, the customer portal and refunds that revoke. Each runs inside the caller's transaction on a row the caller
 * has locked, and is announced through transitions.ts (Polar's webhook sequence).
 */

const BILLABLE = new Set(['trialing', 'active', 'past_due']);

export function alreadyCanceled(): DomainError {
  return new DomainError(
    403,
    'AlreadyCanceledSubscription',
    'This subscription is already canceled or will be at the end of the period.',
  );
}

export interface CancellationInput {
  reason?: CancellationReason | null;
  comment?: string | null;
}

export type LifecycleChange = 'cancel' | 'uncancel' | 'revoke';

/** The subscription after the change, or a Polar error when the change is not allowed in its current state. */
export function applyLifecycle(
  current: Subscription,
  change: LifecycleChange,
  input: CancellationInput,
  now: Date,
): Subscription {
  const next: Subscription = { ...current, modifiedAt: now };
  // Only what was sent changes the stored reason: a cancel without a reason keeps one given earlier.
  if (input.reason !== undefined) next.customerCancellationReason = input.reason;
  if (input.comment !== undefined) next.customerCancellationComment = input.comment;
  if (change === 'cancel') {
    if (!BILLABLE.has(current.status) || current.endedAt || current.cancelAtPeriodEnd) throw alreadyCanceled();
    next.cancelAtPeriodEnd = true;
    next.canceledAt = now;
    next.endsAt = current.currentPeriodEnd;
    // A cancel takes the place of a pause set for the period end (Polar clears it too).
    next.pauseAtPeriodEnd = false;
    return next;
  }
  if (change === 'uncancel') {
    if (current.endedAt)
      throw new DomainError(410, 'ResourceUnavailable', 'This subscription has ended and cannot be uncanceled.');
    if (!current.cancelAtPeriodEnd || !BILLABLE.has(current.status))
      throw new DomainError(400, 'BadRequest', 'This subscription is not set to cancel at the end of the period.');
    next.cancelAtPeriodEnd = false;
    next.canceledAt = null;
    next.endsAt = null;
    next.customerCancellationReason = null;
    next.customerCancellationComment = null;
    return next;
  }
  // Revoke: ends now, whether or not it was set to cancel at the period end, and also while paused.
  if ((!BILLABLE.has(current.status) && current.status !== 'paused') || current.endedAt) throw alreadyCanceled();
  next.status = 'canceled';
  next.pauseAtPeriodEnd = false;
  next.resumesAt = null;
  next.canceledAt = current.canceledAt ?? now;
  next.endsAt = now;
  next.endedAt = now;
  return next;
}

/** Locks, changes and saves the subscription and records its events; returns the saved subscription. */
export async function changeSubscription(
  trx: Db,
  subscriptionId: string,
  change: LifecycleChange,
  input: CancellationInput,
  at: Date,
  options: EmbedOptions,
  check?: (current: Subscription) => void,
): Promise<Subscription> {
  const repo = subscriptionsRepository(trx);
  const current = await repo.lock(subscriptionId);
  if (!current) throw new DomainError(404, 'ResourceNotFound', 'Not found');
  check?.(current);
  const next = applyLifecycle(current, change, input, at);
  await repo.save(next);
  // The scheduler carries out a cancel when the period ends; an uncancel or a revoke takes that back.
  if (change === 'cancel') await schedule(trx, periodEndJob(next), at);
  else await unschedule(trx, PERIOD_END_JOB, next.id);
  await announceLifecycle(trx, current, next, at, options);
  return next;
}

/** The scheduled job that ends a subscription set to cancel, at the end of its current period. */
export const PERIOD_END_JOB = 'subscription.cancel_at_period_end';

function periodEndJob(subscription: Subscription): JobRequest {
  return { kind: PERIOD_END_JOB, subjectId: subscription.id, dueAt: subscription.currentPeriodEnd };
}

/**
 * The period-end job's handler: a subscription still set to cancel, whose period is over, ends (Polar's `cycle()`
 * for `cancel_at_period_end`: `canceled`, `ended_at` now; `subscription.updated`, `subscription.revoked`). Nothing
 * when it was uncanceled, revoked, or its period moved on meanwhile.
 */
export function periodEndHandler(options: EmbedOptions): JobHandler {
  return async (trx, job, now) => {
    const repo = subscriptionsRepository(trx);
    const current = await repo.lock(job.subjectId);
    if (!current || !current.cancelAtPeriodEnd || current.endedAt || !BILLABLE.has(current.status)) return;
    if (current.currentPeriodEnd > now) return;
    const next: Subscription = { ...current, status: 'canceled', endedAt: now, modifiedAt: now };
    await repo.save(next);
    await announceLifecycle(trx, current, next, now, options);
  };
}
