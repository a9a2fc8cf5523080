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
