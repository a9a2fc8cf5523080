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
  /** The price the line bills, when it bills one (a metered price's usage); else the line is a proration. */
  productPriceId?: string;
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

/**
 * The scheduled job kind that settles what a subscription still owes when it ends (canceled at its period end or
 * revoked): the usage of its metered prices since the last cycle, billed in a final order
 * (metered-billing/final-bill.ts). Scheduled by `announceLifecycle` when a subscription ends.
 */
export const FINAL_USAGE_JOB = 'subscription.final_usage';
