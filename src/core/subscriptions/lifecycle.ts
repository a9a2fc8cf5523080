import { DomainError } from '../kernel/errors.js';
import type { Db } from '../database/index.js';
import { unschedule } from '../scheduler/schedule.js';
import { CYCLE_JOB } from './cycle-hooks.js';
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

export const BILLABLE = new Set(['trialing', 'active', 'past_due']);

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
  // A cancel is carried out by the cycle at the period end (renewals/cycle.ts), which finds it set; a revoke leaves
  // nothing for the cycle to do.
  if (change === 'revoke') await unschedule(trx, CYCLE_JOB, next.id);
  await announceLifecycle(trx, current, next, at, options);
  return next;
}
