import { describe, expect, it } from 'vitest';
import { proportion } from '../../src/core/kernel/money.js';

describe('proportion', () => {
  it('scales an amount by a ratio, rounding half away from zero', () => {
    expect(proportion(333, 190, 1000)).toBe(63);
    expect(proportion(500, 1, 1000)).toBe(1);
    expect(proportion(499, 1, 1000)).toBe(0);
    expect(proportion(-500, 1, 1000)).toBe(-1);
    expect(proportion(1000, 190, 1000)).toBe(190);
    expect(proportion(Number.MAX_SAFE_INTEGER, 3, 3)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a zero denominator and fractions', () => {
    expect(() => proportion(1, 1, 0)).toThrow(RangeError);
    expect(() => proportion(1.5, 1, 2)).toThrow(RangeError);
  });
});
