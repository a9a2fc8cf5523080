import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PasswordHasher } from '../../src/core/auth/password-hasher.js';
import { createPasswordHasher } from '../../src/core/auth/password-hasher.js';
import { createAuthService } from '../../src/core/auth/service.js';
import { createSessionService } from '../../src/core/auth/sessions.js';
import { createBackground } from '../../src/core/kernel/background.js';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { DEFAULT_SESSION } from '../../src/core/config/index.js';
import { createDb, type Db } from '../../src/core/database/index.js';
import { DomainError } from '../../src/core/kernel/errors.js';
import { InvalidationBus } from '../../src/core/cache/invalidation.js';
import { migrateLatest } from '../../src/core/database/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// Timing is not asserted (machines are noisy); what makes the answers take equally long is asserted instead:
// every failing path pays for exactly one password verification, like a wrong password does.

let database: TestDatabase;
let db: Db;
const verifications: string[] = [];
const real = createPasswordHasher({ cost: 4, workers: 0 });
const countingHasher: PasswordHasher = {
  hash: (password) => real.hash(password),
  verify: async (password, stored) => {
    verifications.push(stored);
    return real.verify(password, stored);
  },
  close: () => real.close(),
};

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url);
  await migrateLatest(db);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

describe('sign-in without user enumeration', () => {
  it('verifies one hash for unknown addresses, missing credentials and wrong passwords alike', async () => {
    const clock = new ManualClock();
    const bus = new InvalidationBus(database.url, { onKey() {}, onReset() {} });
    const sessions = createSessionService({ db, clock, session: DEFAULT_SESSION, bus });
    const auth = createAuthService({
      db,
      clock,
      hasher: countingHasher,
      sessions,
      config: { password: { minLength: 8, maxLength: 128 }, accountFailureLimit: 100 },
      background: createBackground(),
    });
    const meta = { ipAddress: '127.0.0.1', userAgent: 'test' };
    const { user } = await auth.signUp({ name: 'A', email: 'known@example.com', password: 'the right password' }, meta);
    await auth.signUp({ name: 'B', email: 'social@example.com', password: 'the right password' }, meta);
    await db('accounts')
      .whereIn('user_id', db('users').select('id').where({ email: 'social@example.com' }))
      .del();

    const attempts = [
      { email: 'unknown@example.com', password: 'whatever it is' },
      { email: 'social@example.com', password: 'the right password' },
      { email: 'known@example.com', password: 'a wrong password' },
    ];
    for (const attempt of attempts) {
      verifications.length = 0;
      const error = await auth.signIn(attempt, meta).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('INVALID_EMAIL_OR_PASSWORD');
      expect(verifications, attempt.email).toHaveLength(1);
      expect(verifications[0]).toMatch(/^bcrypt-sha384\$/);
    }
    verifications.length = 0;
    const ok = await auth.signIn({ email: 'known@example.com', password: 'the right password' }, meta);
    expect(ok.user.id).toBe(user.id);
    expect(verifications).toHaveLength(1);
  });
});
