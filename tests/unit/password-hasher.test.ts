import { scryptSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../../src/core/auth/password-hasher.js';

const pooled = createPasswordHasher({ cost: 4, workers: 2 });
const inline = createPasswordHasher({ cost: 4, workers: 0 });
afterAll(async () => {
  await pooled.close();
  await inline.close();
});

describe('password hasher', () => {
  it('hashes in worker threads and verifies the result', async () => {
    const hash = await pooled.hash('correct horse battery staple');
    expect(hash).toMatch(/^bcrypt-sha384\$\$2b\$04\$/);
    expect(await pooled.verify('correct horse battery staple', hash)).toBe(true);
    expect(await pooled.verify('correct horse battery stapl', hash)).toBe(false);
    // The inline fallback reads the same format.
    expect(await inline.verify('correct horse battery staple', hash)).toBe(true);
  });

  it('runs many jobs concurrently through a small pool', async () => {
    const passwords = Array.from({ length: 12 }, (_, i) => `password number ${i}`);
    const hashes = await Promise.all(passwords.map((password) => pooled.hash(password)));
    const checks = await Promise.all(
      passwords.map((password, i) => pooled.verify(password, hashes[(i + 1) % hashes.length]!)),
    );
    expect(checks.every((ok) => ok === false)).toBe(true);
    expect(await Promise.all(passwords.map((password, i) => pooled.verify(password, hashes[i]!)))).toEqual(
      passwords.map(() => true),
    );
  });

  it('distinguishes passwords that share their first 72 bytes', async () => {
    const a = 'x'.repeat(72) + 'tail-one';
    const b = 'x'.repeat(72) + 'tail-two';
    const hash = await pooled.hash(a);
    expect(await pooled.verify(a, hash)).toBe(true);
    expect(await pooled.verify(b, hash)).toBe(false);
    const hundred = 'h'.repeat(100);
    expect(await pooled.verify(hundred, await pooled.hash(hundred))).toBe(true);
  });

  it('verifies password hashes imported from Better Auth (scrypt, salt:key)', async () => {
    const salt = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const key = scryptSync('imported password'.normalize('NFKC'), salt, 64, {
      N: 16384,
      r: 16,
      p: 1,
      maxmem: 128 * 16384 * 16 * 2,
    });
    const stored = `${salt}:${key.toString('hex')}`;
    expect(await pooled.verify('imported password', stored)).toBe(true);
    expect(await pooled.verify('imported passworD', stored)).toBe(false);
  });

  it('refuses unknown hash formats', async () => {
    expect(await pooled.verify('anything', 'plaintext')).toBe(false);
    expect(await pooled.verify('anything', '')).toBe(false);
  });
});
