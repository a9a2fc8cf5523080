import type { Db } from '../database/index.js';
import type { Subscription } from './repository.js';

/**
 * The contract between the renewal cycle and what changes a subscription at its period boundary (a pending plan
 * change, proration waiting for the next bill, a pause at period end). The cycle owns the billing; these hooks own
 * their own rules, so neither has to know the other's tables.
 */

/** The scheduled job kind that renews (or, when set to, ends) a subscription at `current_period_end` or `trial_end`. */
export const CYCLE_JOB = 'subscription.cycle';

/** A line the next cycle order carries besides the plan's price: signed minor units in the subscription's currency. */
export interface CycleItem {
  label: string;
  /** Positive is a debit, negative a credit (unused time of a plan left mid-period). */
  amount: number;
}

export interface CycleHookResult {
  items?: CycleItem[];
  /** The hook ended or paused the subscription itself (and announced it): the cycle bills nothing this time. */
  stop?: boolean;
}

/**
 * Runs inside the cycle's transaction, on the subscription the cycle has locked, before the cycle order is built. A
 * hook may save the subscription (a pending next-period update switches its product and price); the cycle reads it
 * again after every hook has run and bills what it finds, plus every hook's items.
 */
export type CycleHook = (trx: Db, subscription: Subscription, at: Date) => Promise<CycleHookResult>;
