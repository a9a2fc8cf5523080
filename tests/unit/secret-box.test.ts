import { describe, expect, it } from 'vitest';
import { SecretBoxError, createSecretBox } from '../../src/core/kernel/secret-box.js';

const SECRET = 'unit-test-secret-that-is-long-enough-0123';
const box = createSecretBox(SECRET);

/** Flips one bit in the decoded bytes of one dot-separated part. */
function flip(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  it('opens what it sealed, including empty and non-ASCII text', () => {
    for (const plaintext of ['', 'a', '{"kty":"OKP","d":"secret"}', 'päßwörd ✓ 🔑', 'x'.repeat(100_000)]) {
      expect(box.open(box.seal(plaintext))).toBe(plaintext);
    }
  });

  it('writes v1.<iv>.<ciphertext>.<tag> with a fresh 12-byte IV each time, and no plaintext', () => {
    const first = box.seal('the same text');
    const second = box.seal('the same text');
    expect(first).not.toBe(second);
    const [version, iv, ciphertext, tag] = first.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(ciphertext!, 'base64url')).toHaveLength('the same text'.length);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(first).not.toContain('same');
  });

  it('opens under another instance built from the same secret (another daemon), not under another secret', () => {
    const sealed = box.seal('shared');
    expect(createSecretBox(SECRET).open(sealed)).toBe('shared');
    expect(() => createSecretBox(`${SECRET}-other`).open(sealed)).toThrow(SecretBoxError);
  });

  it('refuses a tampered IV, ciphertext or tag', () => {
    const sealed = box.seal('do not touch');
    for (const part of [1, 2, 3]) expect(() => box.open(flip(sealed, part)), `part ${part}`).toThrow(SecretBoxError);
  });

  it('binds the context: a value sealed for one row does not open for another, or without context', () => {
    const sealed = box.seal('private key', 'jwks.private_key:A');
    expect(box.open(sealed, 'jwks.private_key:A')).toBe('private key');
    expect(() => box.open(sealed, 'jwks.private_key:B')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
  });

  it('refuses unknown versions and malformed values without leaking details', () => {
    const sealed = box.seal('x');
    for (const bad of [
      '',
      'plain text',
      sealed.replace(/^v1\./, 'v2.'),
      sealed.split('.').slice(0, 3).join('.'),
      `${sealed}.extra`,
      sealed.replace(/\.[^.]+$/, '.!!!!'),
      'v1...',
    ]) {
      expect(() => box.open(bad), bad).toThrow(SecretBoxError);
    }
    const secret = box.seal('hunter2-plaintext');
    const error = (() => {
      try {
        box.open(flip(secret, 2));
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(SecretBoxError);
    expect(error!.message).not.toContain('hunter2');
  });
});
