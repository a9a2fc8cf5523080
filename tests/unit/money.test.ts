import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, applyBasisPoints, priceCart, type DiscountRule } from '../../src/core/kernel/money.js';

describe('applyBasisPoints', () => {
  it('rounds half away from zero', () => {
    expect(applyBasisPoints(5, 5000)).toBe(3); // 2.5 → 3
    expect(applyBasisPoints(-5, 5000)).toBe(-3);
    expect(applyBasisPoints(1, 4999)).toBe(0);
    expect(applyBasisPoints(999, 1950)).toBe(195); // 194.805
    expect(applyBasisPoints(Number.MAX_SAFE_INTEGER, 10_000)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('allocate', () => {
  it('splits by weight and gives leftovers to the largest remainders', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(10, [0, 0])).toEqual([10, 0]);
    expect(allocate(7, [100, 300])).toEqual([2, 5]);
  });
});

const amount = fc.integer({ min: 0, max: 10_000_000 });
const line = fc.record({ amount, taxBasisPoints: fc.constantFrom(0, 0, 700, 825, 1900, 2000, 2500) });
const discount: fc.Arbitrary<DiscountRule | null> = fc.oneof(
  fc.constant(null),
  fc.record({ type: fc.constant('fixed' as const), amount: fc.integer({ min: 0, max: 20_000_000 }) }),
  fc.record({ type: fc.constant('percentage' as const), basis_points: fc.integer({ min: 1, max: 10_000 }) }),
);

describe('priceCart (property: 2,000 random carts)', () => {
  it('adds up, never discounts more than the subtotal, and stays in integers', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), discount, (lines, rule) => {
        const cart = priceCart(lines, rule);
        const all = [
          cart.subtotal_amount,
          cart.discount_amount,
          cart.net_amount,
          cart.tax_amount,
          cart.total_amount,
          ...cart.lines.flatMap((l) => Object.values(l)),
        ];
        for (const value of all) expect(Number.isSafeInteger(value)).toBe(true);
        expect(cart.subtotal_amount).toBe(lines.reduce((sum, l) => sum + l.amount, 0));
        expect(cart.discount_amount).toBeGreaterThanOrEqual(0);
        expect(cart.discount_amount).toBeLessThanOrEqual(cart.subtotal_amount);
        expect(cart.lines.reduce((sum, l) => sum + l.discount_amount, 0)).toBe(cart.discount_amount);
        expect(cart.lines.reduce((sum, l) => sum + l.tax_amount, 0)).toBe(cart.tax_amount);
        expect(cart.net_amount).toBe(cart.subtotal_amount - cart.discount_amount);
        expect(cart.total_amount).toBe(cart.subtotal_amount - cart.discount_amount + cart.tax_amount);
        for (const priced of cart.lines) {
          expect(priced.discount_amount).toBeLessThanOrEqual(priced.amount);
          expect(priced.net_amount).toBeGreaterThanOrEqual(0);
        }
        if (rule?.type === 'percentage')
          expect(cart.discount_amount).toBe(applyBasisPoints(cart.subtotal_amount, rule.basis_points));
        if (rule?.type === 'fixed') expect(cart.discount_amount).toBe(Math.min(rule.amount, cart.subtotal_amount));
      }),
      { numRuns: 2_000 },
    );
  });

  it('allocates any total exactly across any weights', () => {
    fc.assert(
      fc.property(amount, fc.array(amount, { minLength: 1, maxLength: 10 }), (total, weights) => {
        const parts = allocate(total, weights);
        expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
        for (const part of parts) expect(Number.isSafeInteger(part) && part >= 0).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
