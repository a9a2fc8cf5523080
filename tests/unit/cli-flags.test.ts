import { describe, expect, it } from 'vitest';
import { choiceFlag, isoTimeFlag, wholeNumberFlag } from '../../src/cli/flags.js';

describe('CLI flag checks', () => {
  it('takes whole numbers within their range and names the flag and the range otherwise', () => {
    expect(wholeNumberFlag('--limit', '5', 1, 100)).toBe(5);
    expect(wholeNumberFlag('--page', '3000', 1)).toBe(3000);
    for (const bad of ['0', '101', 'abc', '1e2', '2.5', '-1', ''])
      expect(() => wholeNumberFlag('--limit', bad, 1, 100)).toThrow(
        `invalid --limit: must be a whole number from 1 to 100 (got "${bad}")`,
      );
    expect(() => wholeNumberFlag('--page', '0', 1)).toThrow('invalid --page: must be a whole number of 1 or more');
  });

  it('turns dates and date-times into the UTC date-time the daemon takes, and refuses days that do not exist', () => {
    expect(isoTimeFlag('--since', '2026-01-31')).toBe('2026-01-31T00:00:00.000Z');
    expect(isoTimeFlag('--since', '2026-01-31T09:30')).toBe('2026-01-31T09:30:00.000Z');
    expect(isoTimeFlag('--since', '2026-01-31T09:30:00+02:00')).toBe('2026-01-31T07:30:00.000Z');
    for (const bad of ['2026-02-30', 'yesterday', '2026-01-31T25:00Z', '31/01/2026', '2026-1-3'])
      expect(() => isoTimeFlag('--until', bad)).toThrow(`invalid --until: must be an ISO 8601 date or time`);
  });

  it('takes one of its words and lists them otherwise', () => {
    expect(choiceFlag('--status', 'paid', ['paid', 'refunded'])).toBe('paid');
    expect(() => choiceFlag('--status', 'Paid', ['paid', 'refunded'])).toThrow(
      'invalid --status: must be one of paid, refunded (got "Paid")',
    );
  });
});
