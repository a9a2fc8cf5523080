import type { JobRequest } from '../scheduler/repository.js';
import { CYCLE_JOB } from './cycle-hooks.js';
import type { Subscription } from './repository.js';

/**
 * The subscription's next cycle: at the end of its trial while trialing, else at the end of its current period.
 * Scheduled with every change that moves that time (the checkout that creates it, each cycle, a trial change); a job
 * left at an old time finds the period not over and does nothing.
 */
export function cycleJob(subscription: Subscription): JobRequest {
  const dueAt =
    subscription.status === 'trialing' && subscription.trialEnd ? subscription.trialEnd : subscription.currentPeriodEnd;
  return { kind: CYCLE_JOB, subjectId: subscription.id, dueAt };
}

/** The job that mails the customer before their trial ends. */
export const TRIAL_REMINDER_JOB = 'subscription.trial_reminder';

const DAY_MS = 86_400_000;

/**
 * 3 days before the trial ends, 1 day for a trial shorter than a week (Polar's conversion reminder); null without a
 * trial, or when that time is already past when the trial begins.
 */
export function trialReminderJob(subscription: Subscription, at: Date): JobRequest | null {
  const { trialStart, trialEnd } = subscription;
  if (subscription.status !== 'trialing' || !trialEnd) return null;
  const length = trialEnd.getTime() - (trialStart ?? at).getTime();
  const dueAt = new Date(trialEnd.getTime() - (length < 7 * DAY_MS ? 1 : 3) * DAY_MS);
  return dueAt > at ? { kind: TRIAL_REMINDER_JOB, subjectId: subscription.id, dueAt } : null;
}
