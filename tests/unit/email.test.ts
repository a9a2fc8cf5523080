import { describe, expect, it } from 'vitest';
import { isValidEmail } from '../../src/core/auth/email.js';

describe('e-mail validation (spec §5)', () => {
  it('accepts ordinary addresses up to the limits', () => {
    expect(isValidEmail('ada@example.com')).toBe(true);
    expect(isValidEmail('first.last+tag@sub.example.co.uk')).toBe(true);
    expect(isValidEmail(`${'l'.repeat(64)}@example.com`)).toBe(true);
    const domain = `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.com`;
    const address = `${'l'.repeat(254 - domain.length - 1)}@${domain}`;
    expect(address.length).toBe(254);
    expect(isValidEmail(address)).toBe(true);
    expect(isValidEmail(`l${address}`)).toBe(false); // 255 characters
  });

  it('refuses what the spec refuses', () => {
    for (const bad of [
      `${'l'.repeat(65)}@example.com`,
      `${'l'.repeat(60)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.com`,
      'no-at-sign',
      '@example.com',
      'a@',
      'a@localhost',
      'a@example.c0m',
      'a@-example.com',
      'a..b@example.com',
      'a@exa_mple.com',
    ]) {
      expect(isValidEmail(bad), bad).toBe(false);
    }
  });
});
