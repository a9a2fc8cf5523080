import { proportion } from '../kernel/money.js';
import type { CycleItem } from '../subscriptions/cycle-hooks.js';

/**
 * Proration by the second (Stripe's semantics, billing-practice §1.1): leaving a plan mid-period credits the unused
 * part of what was paid for it, and the new plan debits its price for the same remaining time. Both lines go through
 * kernel money's `proportion`, each rounded half away from zero on its own, so a change is off the exact price-time
 * by at most one minor unit (half a unit per line). Time is counted in whole seconds; a started second counts as used.
 */

const SECOND = 1000;

export interface ProrationInput {
  periodStart: Date;
  periodEnd: Date;
  at: Date;
  oldAmount: number;
  newAmount: number;
  oldLabel: string;
  newLabel: string;
}

/** Seconds of the period left after `at` (0 once it is over) and the period's length, both whole. */
export function remainingSeconds(periodStart: Date, periodEnd: Date, at: Date): { remaining: number; period: number } {
  const period = Math.max(1, Math.round((periodEnd.getTime() - periodStart.getTime()) / SECOND));
  const remaining = Math.min(period, Math.max(0, Math.floor((periodEnd.getTime() - at.getTime()) / SECOND)));
  return { remaining, period };
}

/** The credit for the unused old plan and the debit for the new plan over the rest of the same period. */
export function prorationLines(input: ProrationInput): CycleItem[] {
  const { remaining, period } = remainingSeconds(input.periodStart, input.periodEnd, input.at);
  return [
    { label: `Unused time on ${input.oldLabel}`, amount: 0 - proportion(input.oldAmount, remaining, period) },
    { label: `Remaining time on ${input.newLabel}`, amount: proportion(input.newAmount, remaining, period) },
  ];
}

/**
 * A change of billing interval restarts the period now (Stripe resets the billing cycle anchor): the unused old time
 * is credited and the new plan's whole first period is debited.
 */
export function restartLines(input: ProrationInput): CycleItem[] {
  const { remaining, period } = remainingSeconds(input.periodStart, input.periodEnd, input.at);
  return [
    { label: `Unused time on ${input.oldLabel}`, amount: 0 - proportion(input.oldAmount, remaining, period) },
    { label: input.newLabel, amount: input.newAmount },
  ];
}

export function sum(items: readonly CycleItem[]): number {
  return items.reduce((total, item) => total + item.amount, 0);
}
