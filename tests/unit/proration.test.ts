import { describe, expect, it } from 'vitest';
import { prorationLines, remainingSeconds, restartLines, sum } from '../../src/core/subscription-changes/proration.js';

const start = new Date('2027-04-01T12:00:00.000Z');
const end = new Date('2027-05-01T12:00:00.000Z'); // 30 days

function at(days: number, extraMs = 0): Date {
  return new Date(start.getTime() + days * 86_400_000 + extraMs);
}

const base = { periodStart: start, periodEnd: end, oldLabel: 'Basic', newLabel: 'Pro' };

describe('proration', () => {
  it("is Stripe's example: halfway through, 10 → 20 is −5 + 10", () => {
    const lines = prorationLines({ ...base, at: at(15), oldAmount: 1000, newAmount: 2000 });
    expect(lines).toEqual([
      { label: 'Unused time on Basic', amount: -500 },
      { label: 'Remaining time on Pro', amount: 1000 },
    ]);
    expect(sum(lines)).toBe(500);
  });

  it('rounds each line half away from zero, so a change is off by at most one unit', () => {
    // ⅔ of 1000 is 666.67 and ⅔ of 3000 is exactly 2000.
    expect(prorationLines({ ...base, at: at(10), oldAmount: 1000, newAmount: 3000 }).map((l) => l.amount)).toEqual([
      -667, 2000,
    ]);
    // A downgrade: the credit is bigger than the debit.
    expect(sum(prorationLines({ ...base, at: at(10), oldAmount: 3000, newAmount: 600 }))).toBe(-1600);
  });

  it('counts whole seconds: a started second is used', () => {
    expect(remainingSeconds(start, end, at(10, 999))).toEqual({ remaining: 20 * 86_400 - 1, period: 30 * 86_400 });
    expect(remainingSeconds(start, end, at(40))).toEqual({ remaining: 0, period: 30 * 86_400 });
    expect(remainingSeconds(start, end, at(-1)).remaining).toBe(30 * 86_400);
  });

  it('a restart credits the unused time and debits the whole new period', () => {
    expect(restartLines({ ...base, at: at(10), oldAmount: 1000, newAmount: 10_000 })).toEqual([
      { label: 'Unused time on Basic', amount: -667 },
      { label: 'Pro', amount: 10_000 },
    ]);
  });

  it('nothing is left to prorate at the period end', () => {
    expect(sum(prorationLines({ ...base, at: end, oldAmount: 1000, newAmount: 3000 }))).toBe(0);
  });
});
