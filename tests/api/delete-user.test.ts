import { describe, expect, it } from 'vitest';
import { DAY, SECOND } from '../../src/core/kernel/clock.js';
import { DEFAULT_EMAIL_FLOWS } from '../../src/core/config/index.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { TestClient, signUpUser } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { MAIL_MODES, useMailHarness, type MailHarness } from '../helpers/mail-harness.js';

async function member(h: { daemon: { url: string } }) {
  const client = new TestClient(h.daemon.url, { origin: h.daemon.url });
  return { client, ...(await signUpUser(client)) };
}

function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

async function rowsOf(h: MailHarness, userId: string): Promise<number[]> {
  const db = h.daemon.core.db;
  const counts = await Promise.all(
    ['users', 'sessions', 'accounts'].map((table) =>
      db(table)
        .where(table === 'users' ? { id: userId } : { user_id: userId })
        .count({ n: '*' }),
    ),
  );
  return counts.map((rows) => Number(rows[0]!.n));
}

describe('delete-user turned off (the default)', () => {
  const harness = useMailHarness('outbox');

  it('answers 404 with an empty body, like Better Auth', async () => {
    const m = await member(harness());
    const refused = await m.client.post('/api/auth/delete-user', { password: m.password });
    expect(refused.status).toBe(404);
    expect(refused.text).toBe('');
    const callback = await m.client.get('/api/auth/delete-user/callback?token=x');
    expect(callback.status).toBe(404);
    expect(callback.json).toEqual({ code: 'NOT_FOUND', message: 'Not found' });
    expect((await m.client.get('/api/auth/get-session')).json.user.id).toBe(m.user.id);
  });
});

describe('delete-user turned on', () => {
  const harness = useMailHarness('outbox', { deleteUser: 'on' });

  it('deletes with the password: user, sessions and accounts go, cookies are cleared, cached sessions end', async () => {
    const h = harness();
    const m = await member(h);
    const elsewhere = await new TestClient(h.daemon.url).post('/api/auth/sign-in/email', {
      email: m.email,
      password: m.password,
    });
    const bearer = { headers: { authorization: `Bearer ${elsewhere.json.token}` } };
    // The other session is now cached in memory; deletion must drop it at once.
    expect((await new TestClient(h.daemon.url).get('/api/auth/get-session', bearer)).json.user.id).toBe(m.user.id);

    const wrong = await m.client.post('/api/auth/delete-user', { password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ code: 'INVALID_PASSWORD', message: 'Invalid password' });

    const apiKey = await m.client.post('/api/auth/api-key/create', { name: 'ci' });
    expect(apiKey.status).toBe(200);

    const deleted = await m.client.post('/api/auth/delete-user', { password: m.password });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ success: true, message: 'User deleted' });
    expect(deleted.setCookies.filter((cookie) => /Max-Age=0/.test(cookie))).toHaveLength(3);
    expect(await rowsOf(h, m.user.id)).toEqual([0, 0, 0]);
    // Their API keys go in the same transaction, not at the next sweep.
    expect(await h.daemon.core.db('api_keys').where({ reference_id: m.user.id })).toEqual([]);
    expect((await new TestClient(h.daemon.url).get('/api/auth/get-session', bearer)).text).toBe('null');
    expect(
      (await new TestClient(h.daemon.url).post('/api/auth/sign-in/email', { email: m.email, password: m.password }))
        .status,
    ).toBe(401);
  });

  it('without a password needs a fresh session', async () => {
    const h = harness();
    const fresh = await member(h);
    expect((await fresh.client.post('/api/auth/delete-user', {})).json).toEqual({
      success: true,
      message: 'User deleted',
    });

    const stale = await member(h);
    h.daemon.clock.advance(DAY + SECOND);
    const refused = await stale.client.post('/api/auth/delete-user', {});
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: 'SESSION_EXPIRED',
      message: 'Session expired. Re-authenticate to perform this action.',
    });
    expect((await stale.client.post('/api/auth/delete-user', { password: stale.password })).json.success).toBe(true);
  });

  it('refuses a password when the user has no credential account, and anonymous callers', async () => {
    const h = harness();
    const m = await member(h);
    await h.daemon.core.db('accounts').where({ user_id: m.user.id }).del();
    const refused = await m.client.post('/api/auth/delete-user', { password: 'whatever it is' });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: 'CREDENTIAL_ACCOUNT_NOT_FOUND', message: 'Credential account not found' });
    expect((await new TestClient(h.daemon.url).post('/api/auth/delete-user', {})).status).toBe(401);
  });
});

describe.each(MAIL_MODES)('delete-user with a mailed confirmation (%s)', (mode) => {
  const harness = useMailHarness(mode, { deleteUser: 'verify' });

  async function requested(h: MailHarness, callbackURL?: string) {
    const m = await member(h);
    const asked = await m.client.post('/api/auth/delete-user', callbackURL ? { callbackURL } : {});
    expect(asked.json).toEqual({ success: true, message: 'Verification email sent' });
    expect(await rowsOf(h, m.user.id)).toEqual([1, 1, 1]);
    const letter = await h.latest(m.email);
    expect(letter.subject).toBe('Confirm the deletion of your account');
    const link = linkIn(letter.text, '/delete-user/callback');
    const token = new URL(link).searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-z]{32}$/);
    return { m, link, token };
  }

  it('the link, opened with the user’s session, deletes the account and redirects', async () => {
    const h = harness();
    const { m, link } = await requested(h, '/goodbye');
    expect(new URL(link).searchParams.get('callbackURL')).toBe('/goodbye');
    const opened = await m.client.get(pathOf(link));
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('/goodbye');
    expect(opened.setCookies.filter((cookie) => /Max-Age=0/.test(cookie))).toHaveLength(3);
    expect(await rowsOf(h, m.user.id)).toEqual([0, 0, 0]);
    // The user's mail went with them.
    expect(await h.count(m.email)).toBe(0);
  });

  it('needs that user’s session, refuses strangers without burning the token, and expires after a day', async () => {
    const h = harness();
    const { m, link, token } = await requested(h);
    const anonymous = await new TestClient(h.daemon.url).get(pathOf(link));
    expect(anonymous.status).toBe(404);
    expect(anonymous.json).toEqual({ code: 'FAILED_TO_GET_USER_INFO', message: 'Failed to get user info' });
    const stranger = await member(h);
    const foreign = await stranger.client.get(pathOf(link));
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ code: 'INVALID_TOKEN', message: 'Invalid token' });
    // Still good for its owner, through the POST route as well as the link.
    expect((await m.client.post('/api/auth/delete-user', { token })).json).toEqual({
      success: true,
      message: 'User deleted',
    });

    const late = await requested(h);
    h.daemon.clock.advance(DAY);
    const expired = await late.m.client.get(pathOf(late.link));
    expect(expired.status).toBe(404);
    expect(expired.json.code).toBe('INVALID_TOKEN');
    expect(await rowsOf(h, late.m.user.id)).toEqual([1, 1, 1]);
  });

  it('a used link does not work twice', async () => {
    const h = harness();
    const { m, token } = await requested(h);
    const other = await requested(h);
    await m.client.post('/api/auth/delete-user', { token });
    const reused = await other.m.client.post('/api/auth/delete-user', { token });
    expect(reused.status).toBe(404);
    expect(reused.json.code).toBe('INVALID_TOKEN');
  });
});

// Only on PostgreSQL, where several daemons share a database; a SQLite run reports this suite as skipped.
describe.runIf(testDialect === 'postgres')('several daemons', () => {
  it('PostgreSQL: a deletion on one daemon ends the user’s sessions cached on another', async () => {
    const database = await createTestDatabase();
    const overrides = { databaseUrl: database.url, emailFlows: { ...DEFAULT_EMAIL_FLOWS, deleteUser: 'on' as const } };
    const [a, b] = await Promise.all([startTestDaemon(overrides), startTestDaemon(overrides)]);
    try {
      const m = await member({ daemon: a });
      const bearer = { headers: { authorization: `Bearer ${m.token}` } };
      expect((await new TestClient(b.url).get('/api/auth/get-session', bearer)).json.user.id).toBe(m.user.id);
      await new TestClient(a.url).post('/api/auth/delete-user', { password: m.password }, bearer);
      let answer = '';
      // NOTIFY reaches b a few milliseconds after the commit: poll a bounded number of times, no sleeping.
      for (let attempt = 0; attempt < 200 && answer !== 'null'; attempt++) {
        answer = (await new TestClient(b.url).get('/api/auth/get-session', bearer)).text;
        if (answer !== 'null') await new Promise((resolve) => setImmediate(resolve));
      }
      expect(answer).toBe('null');
    } finally {
      await Promise.all([a.close(), b.close()]);
      await database.drop();
    }
  });
});

describe('delete-user and organizations', () => {
  const harness = useMailHarness('outbox', { deleteUser: 'on' });

  it('refuses while the user is the only owner of an organization, and deletes once another owner exists', async () => {
    const h = harness();
    const owner = await member(h);
    const org = await owner.client.post('/api/auth/organization/create', {
      name: 'Solo',
      slug: `solo-${owner.user.id.toLowerCase()}`,
    });
    expect(org.status).toBe(200);
    const refused = await owner.client.post('/api/auth/delete-user', { password: owner.password });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER',
      message:
        'You are the only owner of an organization: make another member an owner or delete the organization first',
    });
    expect(await rowsOf(h, owner.user.id)).toEqual([1, 1, 1]);

    const second = await member(h);
    await h.daemon.core.db('members').insert({
      id: 'm'.repeat(32),
      organization_id: org.json.id,
      user_id: second.user.id,
      role: 'admin,owner',
      created_at: h.daemon.clock.now(),
    });
    const deleted = await owner.client.post('/api/auth/delete-user', { password: owner.password });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await rowsOf(h, owner.user.id)).toEqual([0, 0, 0]);
  });
});
