import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/core/kernel/email.js';

describe('normalizeEmail (kernel/email.ts)', () => {
  it('lower-cases and drops a plus-suffix at any provider', () => {
    expect(normalizeEmail('Ann.Lee+Shop@Example.COM')).toBe('ann.lee@example.com');
    expect(normalizeEmail('ann+a+b@example.com')).toBe('ann@example.com');
  });

  it('ignores dots at Gmail, and folds googlemail.com into gmail.com', () => {
    expect(normalizeEmail('A.B+y@GMAIL.com')).toBe('ab@gmail.com');
    expect(normalizeEmail('a.b.c@googlemail.com')).toBe('abc@gmail.com');
    // Dots elsewhere are significant: other providers deliver a.b@ and ab@ to different people.
    expect(normalizeEmail('a.b@example.com')).toBe('a.b@example.com');
    expect(normalizeEmail('a.b@mail.gmail.com.example')).toBe('a.b@mail.gmail.com.example');
  });

  it('applies Unicode NFC before comparing', () => {
    // "é" as e + combining acute, and as one code point.
    expect(normalizeEmail('Re\u0301@example.com')).toBe(normalizeEmail('r\u00e9@example.com'));
  });

  it('is total: never empties a local part, and leaves a string without @ lower-cased', () => {
    expect(normalizeEmail('+x@example.com')).toBe('+x@example.com');
    expect(normalizeEmail('...@gmail.com')).toBe('...@gmail.com');
    expect(normalizeEmail('NoAt')).toBe('noat');
    expect(normalizeEmail('ab@gmail.com')).toBe(normalizeEmail(normalizeEmail('a.B+1@googlemail.com')));
  });
});
