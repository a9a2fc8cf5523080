import { describe, expect, it } from 'vitest';
import * as normalizedEmailMigration from '../../migrations/20261202000000_normalized_email.js';
import { migrations } from '../../migrations/index.js';
import { createDb } from '../../src/core/database/index.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { startMailHarness } from '../helpers/mail-harness.js';

// Spec §3 and §5: users carry an optional unique normalizedEmail (kernel/email.ts) that is never input or output;
// sign-up treats another spelling of a taken mailbox as taken, and sign-in falls back to it.

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });
const META = { ipAddress: '127.0.0.1', userAgent: 'test' };
const TAKEN = { code: 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL', message: 'User already exists. Use another email.' };

/** A Gmail mailbox no other test uses, e.g. `nx4k2…`; spell it `a.b+x` style with `dotted`. */
function mailbox(): { plain: string; dotted: string } {
  const id = `n${Math.random().toString(36).slice(2, 10)}`;
  return { plain: `${id}@gmail.com`, dotted: `${id.slice(0, 2)}.${id.slice(2)}+x@gmail.com` };
}

async function storedNormalized(email: string): Promise<unknown> {
  const row = await daemon().core.db('users').select('normalized_email').where({ email }).first();
  return row?.normalized_email;
}

describe('sign-up', () => {
  it('stores the normalized address and refuses another spelling of the same mailbox', async () => {
    const { plain, dotted } = mailbox();
    await signUpUser(client(), { email: dotted });
    expect(await storedNormalized(dotted)).toBe(plain);
    const second = await client().post('/api/auth/sign-up/email', {
      name: 'B',
      email: plain,
      password: DEFAULT_PASSWORD,
    });
    expect(second.status).toBe(422);
    expect(second.json).toEqual(TAKEN);
    const plusOnly = await client().post('/api/auth/sign-up/email', {
      name: 'C',
      email: plain.replace('@', '+other@'),
      password: DEFAULT_PASSWORD,
    });
    expect(plusOnly.json).toEqual(TAKEN);
    expect(await daemon().core.db('users').where({ normalized_email: plain }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('does not accept normalizedEmail as input', async () => {
    const response = await client().post('/api/auth/sign-up/email', {
      name: 'N',
      email: uniqueEmail(),
      password: DEFAULT_PASSWORD,
      normalizedEmail: 'someone@example.com',
    });
    expect(response.status).toBe(400);
    expect(await daemon().core.db('users').where({ normalized_email: 'someone@example.com' }).first()).toBeUndefined();
  });

  it('under required verification answers a taken mailbox like a free one and creates nobody', async () => {
    const h = await startMailHarness('outbox', { requireEmailVerification: true, sendVerificationOnSignUp: true });
    try {
      const { auth, background, db } = h.daemon.core;
      const { plain, dotted } = mailbox();
      await auth.signUp({ name: 'First', email: dotted, password: DEFAULT_PASSWORD }, META);
      await background.settled();
      const answer = await auth.signUp({ name: 'Second', email: plain, password: DEFAULT_PASSWORD }, META);
      expect(answer.token).toBeNull();
      expect(answer.user.email).toBe(plain);
      await background.settled();
      expect((await db('users').where({ normalized_email: plain })).map((row) => row.name)).toEqual(['First']);
      expect(await db('users').where({ email: plain }).first()).toBeUndefined();
      expect(await h.count(plain)).toBe(0);
    } finally {
      await h.stop();
    }
  });
});

describe('change of address', () => {
  it("treats another user's mailbox as taken, and lets a user respell their own", async () => {
    const h = await startMailHarness('outbox');
    try {
      const signUp = async (email?: string) => {
        const c = new TestClient(h.daemon.url, { origin: h.daemon.url });
        return { c, ...(await signUpUser(c, { email })) };
      };
      const { plain, dotted } = mailbox();
      const holder = await signUp(dotted);
      const other = await signUp();
      expect((await other.c.post('/api/auth/change-email', { newEmail: plain })).json).toEqual({ status: true });
      expect(await h.count(plain)).toBe(0);

      expect((await holder.c.post('/api/auth/change-email', { newEmail: plain })).status).toBe(200);
      const link = new URL(linkIn((await h.latest(plain)).text, '/verify-email'));
      expect((await holder.c.get(link.pathname + link.search)).status).toBeLessThan(400);
      const session = await holder.c.get('/api/auth/get-session');
      expect(session.json.user.email).toBe(plain);
      expect(session.text).not.toMatch(/normalized/i);
      const row = await h.daemon.core.db('users').where({ id: holder.user.id }).first();
      expect(row.normalized_email).toBe(plain);
    } finally {
      await h.stop();
    }
  });
});

describe('sign-in', () => {
  it('matches another spelling of the mailbox with the password, and never shows normalizedEmail', async () => {
    const { plain, dotted } = mailbox();
    const signedUp = await signUpUser(client(), { email: dotted });
    expect(JSON.stringify(signedUp.user)).not.toMatch(/normalized/i);
    const spelled = plain.replace(
      /^(..)(.*)@gmail\.com$/,
      (_, a: string, b: string) => `${a.toUpperCase()}.${b}+y@GMAIL.com`,
    );
    const c = client();
    const wrong = await c.post('/api/auth/sign-in/email', { email: spelled, password: 'wrong password here' });
    expect(wrong.status).toBe(401);
    const signedIn = await c.post('/api/auth/sign-in/email', { email: spelled, password: DEFAULT_PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(signedIn.json.user.id).toBe(signedUp.user.id);
    expect(signedIn.json.user.email).toBe(dotted);
    const session = await c.get('/api/auth/get-session');
    expect(session.json.user.id).toBe(signedUp.user.id);
    for (const body of [signedIn.text, session.text]) expect(body).not.toMatch(/normalized/i);
  });

  it('prefers the exact address over a normalized match', async () => {
    // Only possible for users from before the column: the later one kept NULL (see the migration).
    const id = `p${Math.random().toString(36).slice(2, 10)}`;
    const first = await signUpUser(client(), { email: `${id}@example.com` });
    const exact = `${id}+tag@example.com`;
    const now = new Date('2026-11-01T12:00:00.000Z');
    await daemon()
      .core.db('users')
      .insert({
        id: `legacy${id}`.padEnd(32, '0'),
        email: exact,
        name: 'Legacy',
        email_verified: false,
        created_at: now,
        updated_at: now,
      });
    const answer = await client().post('/api/auth/sign-in/email', { email: exact, password: DEFAULT_PASSWORD });
    // The legacy user has no password: the exact match wins and fails, rather than signing `first` in.
    expect(answer.status).toBe(401);
    const own = await client().post('/api/auth/sign-in/email', { email: first.email, password: DEFAULT_PASSWORD });
    expect(own.status).toBe(200);
  });
});

describe('migration 20261202000000_normalized_email', () => {
  it('backfills in creation order and leaves NULL for a later user whose mailbox collides', async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url);
    try {
      for (const { name, module } of migrations) {
        if (name === '20261202000000_normalized_email') break;
        await module.up(db, {});
      }
      const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));
      const user = (id: string, email: string, minute: number) => ({
        id: id.padEnd(32, '0'),
        email,
        name: id,
        email_verified: false,
        created_at: at(minute),
        updated_at: at(minute),
      });
      // Inserted out of creation order, so the backfill must sort.
      await db('users').insert([
        user('later', 'ab@gmail.com', 5),
        user('first', 'a.b+old@googlemail.com', 1),
        user('alone', 'Solo+x@Example.com', 3),
      ]);
      await normalizedEmailMigration.up(db);
      const rows = await db('users').select('name', 'normalized_email').orderBy('name');
      expect(rows).toEqual([
        { name: 'alone', normalized_email: 'solo@example.com' },
        { name: 'first', normalized_email: 'ab@gmail.com' },
        { name: 'later', normalized_email: null },
      ]);
      await expect(
        db('users')
          .insert(user('dupe', 'a.b@gmail.com', 9))
          .then(() => undefined),
      ).resolves.toBe(undefined);
      await expect(db('users').where({ name: 'dupe' }).update({ normalized_email: 'ab@gmail.com' })).rejects.toThrow();
      await normalizedEmailMigration.down(db);
      expect(await db('users').count({ n: '*' })).toEqual([{ n: 4 }]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
