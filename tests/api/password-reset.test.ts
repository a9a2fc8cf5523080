import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/kernel/crypto.js';
import { SECOND } from '../../src/core/kernel/clock.js';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { linkIn } from '../helpers/mail.js';
import { MAIL_MODES, startMailHarness, useMailHarness, type MailHarness } from '../helpers/mail-harness.js';

const MESSAGE = 'If this email exists in our system, check your email for the reset link.';
const NEW_PASSWORD = 'a brand new password';

async function member(h: MailHarness) {
  return signUpUser(new TestClient(h.daemon.url, { origin: h.daemon.url }));
}

function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

async function signIn(h: MailHarness, email: string, password: string) {
  return new TestClient(h.daemon.url).post('/api/auth/sign-in/email', { email, password });
}

describe.each(MAIL_MODES)('password reset (%s)', (mode) => {
  const harness = useMailHarness(mode);

  it('mails a reset link; the link hands the token to the page, which sets a new password once', async () => {
    const h = harness();
    const { email, password } = await member(h);
    const anonymous = new TestClient(h.daemon.url);
    const requested = await anonymous.post('/api/auth/request-password-reset', { email, redirectTo: '/reset' });
    expect(requested.status).toBe(200);
    expect(requested.json).toEqual({ status: true, message: MESSAGE });

    const letter = await h.latest(email);
    expect(letter.subject).toBe('Reset your password');
    const link = linkIn(letter.text, '/reset-password/');
    const token = /\/reset-password\/([A-Za-z0-9]+)\?/.exec(link)![1]!;
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(new URL(link).searchParams.get('callbackURL')).toBe('/reset');

    const opened = await anonymous.get(pathOf(link));
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe(`${h.daemon.url}/reset?token=${token}`);

    const reset = await anonymous.post('/api/auth/reset-password', { newPassword: NEW_PASSWORD, token });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ status: true });
    expect((await signIn(h, email, NEW_PASSWORD)).status).toBe(200);
    expect((await signIn(h, email, password)).status).toBe(401);

    // Single use: the token is gone, by POST and by link alike.
    const reused = await anonymous.post('/api/auth/reset-password', { newPassword: 'yet another password', token });
    expect(reused.status).toBe(400);
    expect(reused.json).toEqual({ code: 'INVALID_TOKEN', message: 'Invalid token' });
    expect((await anonymous.get(pathOf(link))).headers.location).toBe(`${h.daemon.url}/reset?error=INVALID_TOKEN`);
  });

  it('stores only a digest of the token', async () => {
    const h = harness();
    const { email } = await member(h);
    await new TestClient(h.daemon.url).post('/api/auth/request-password-reset', { email, redirectTo: '/reset' });
    const token = /\/reset-password\/([A-Za-z0-9]+)\?/.exec(
      linkIn((await h.latest(email)).text, '/reset-password/'),
    )![1]!;
    const rows = await h.daemon.core.db('verifications').where('identifier', 'like', 'reset-password:%');
    expect(rows.map((row: { identifier: string }) => row.identifier)).toContain(`reset-password:${sha256Hex(token)}`);
    expect(JSON.stringify(rows)).not.toContain(token);
    const mailRows = await h.daemon.core.db('mails').where({ to_address: email });
    expect(JSON.stringify(mailRows)).not.toContain(token);
  });

  it('expires tokens after an hour', async () => {
    const h = harness();
    const { email } = await member(h);
    const anonymous = new TestClient(h.daemon.url);
    await anonymous.post('/api/auth/request-password-reset', { email, redirectTo: `${h.daemon.url}/reset` });
    const link = linkIn((await h.latest(email)).text, '/reset-password/');
    const token = /\/reset-password\/([A-Za-z0-9]+)\?/.exec(link)![1]!;
    h.daemon.clock.advance(3600 * SECOND);
    expect((await anonymous.get(pathOf(link))).headers.location).toBe(`${h.daemon.url}/reset?error=INVALID_TOKEN`);
    const expired = await anonymous.post('/api/auth/reset-password', { newPassword: NEW_PASSWORD, token });
    expect(expired.status).toBe(400);
    expect(expired.json.code).toBe('INVALID_TOKEN');
  });

  it('answers an unknown address byte for byte like a known one, and writes nothing for it', async () => {
    const h = harness();
    const { email } = await member(h);
    const anonymous = new TestClient(h.daemon.url);
    const unknown = uniqueEmail('nobody');
    const verificationsBefore = await h.daemon.core.db('verifications').count({ n: '*' });
    const mailsBefore = await h.count();
    const forUnknown = await anonymous.post('/api/auth/request-password-reset', {
      email: unknown,
      redirectTo: '/reset',
    });
    await h.daemon.core.background.settled();
    expect(await h.count()).toBe(mailsBefore);
    expect(await h.daemon.core.db('verifications').count({ n: '*' })).toEqual(verificationsBefore);
    const forKnown = await anonymous.post('/api/auth/request-password-reset', { email, redirectTo: '/reset' });
    await h.daemon.core.background.settled();
    expect(await h.count()).toBe(mailsBefore + 1);
    expect(forUnknown.status).toBe(forKnown.status);
    expect(forUnknown.text).toBe(forKnown.text);
    // The date and the request's own id aside (x-request-id is new on every request).
    const { date: _a, 'x-request-id': _c, ...unknownHeaders } = forUnknown.headers;
    const { date: _b, 'x-request-id': _d, ...knownHeaders } = forKnown.headers;
    expect(unknownHeaders).toEqual(knownHeaders);
  });

  // Issue 16 #8: a known address used to answer after a write and a commit an unknown one skipped (4.0 ms against
  // 1.6 ms). No timing is measured here; what makes the answers equal is: the request returns before it has sent
  // a single statement, known address or not, and the lookup, token and mail follow in the background.
  it('answers before any statement is sent, for known and unknown addresses alike', async () => {
    const h = harness();
    const { email } = await member(h);
    const reset = h.daemon.core.emailFlows.passwordReset;
    const { background, db } = h.daemon.core;
    for (const [address, mails] of [
      [uniqueEmail('nobody'), 0],
      [email, 1],
    ] as const) {
      await background.settled();
      const mailsBefore = await h.count(address);
      const statements: string[] = [];
      const listener = (query: { sql: string }) => statements.push(query.sql);
      db.on('query', listener);
      try {
        // Nothing to wait for: the route answers right after this call, and its answer is written before the
        // background step's first turn.
        expect(reset.request({ email: address, redirectTo: '/reset' }), address).toBeUndefined();
        await Promise.resolve();
        expect(statements, address).toEqual([]);
        await background.settled();
        expect(
          statements.some((sql) => /from .?users/i.test(sql)),
          address,
        ).toBe(true);
      } finally {
        db.off('query', listener);
      }
      expect(await h.count(address)).toBe(mailsBefore + mails);
    }
  });

  it('takes the token from the query string too, and checks the password length first', async () => {
    const h = harness();
    const { email } = await member(h);
    const anonymous = new TestClient(h.daemon.url);
    await anonymous.post('/api/auth/forget-password', { email, redirectTo: '/reset' });
    const token = /\/reset-password\/([A-Za-z0-9]+)\?/.exec(
      linkIn((await h.latest(email)).text, '/reset-password/'),
    )![1]!;
    const short = await anonymous.post(`/api/auth/reset-password?token=${token}`, { newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.json).toEqual({ code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });
    const missing = await anonymous.post('/api/auth/reset-password', { newPassword: NEW_PASSWORD });
    expect(missing.json).toEqual({ code: 'INVALID_TOKEN', message: 'Invalid token' });
    const ok = await anonymous.post(`/api/auth/reset-password?token=${token}`, { newPassword: NEW_PASSWORD });
    expect(ok.json).toEqual({ status: true });
  });

  it('without a redirect target, mails the token and the CLI command instead of a link', async () => {
    const h = harness();
    const { email } = await member(h);
    await new TestClient(h.daemon.url).post('/api/auth/request-password-reset', { email });
    const letter = await h.latest(email);
    expect(letter.text).not.toContain('/reset-password/');
    const token = /till password reset --token ([A-Za-z0-9]{24})/.exec(letter.text)![1]!;
    expect(
      (await new TestClient(h.daemon.url).post('/api/auth/reset-password', { newPassword: NEW_PASSWORD, token })).json,
    ).toEqual({ status: true });
  });

  it('refuses a redirect target off the trusted origins, and sends a bare link to the error page', async () => {
    const h = harness();
    const anonymous = new TestClient(h.daemon.url);
    const refused = await anonymous.post('/api/auth/request-password-reset', {
      email: uniqueEmail(),
      redirectTo: 'https://evil.example/',
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ code: 'INVALID_REDIRECT_URL', message: 'Invalid redirectURL' });
    const bare = await anonymous.get('/api/auth/reset-password/whatever?callbackURL=');
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe(`${h.daemon.url}/api/auth/error?error=INVALID_TOKEN`);
  });

  it('gives a password to a user who had none', async () => {
    const h = harness();
    const { email, user } = await member(h);
    await h.daemon.core.db('accounts').where({ user_id: user.id }).del();
    await new TestClient(h.daemon.url).post('/api/auth/request-password-reset', { email });
    const token = /--token ([A-Za-z0-9]{24})/.exec((await h.latest(email)).text)![1]!;
    await new TestClient(h.daemon.url).post('/api/auth/reset-password', { newPassword: NEW_PASSWORD, token });
    expect((await signIn(h, email, NEW_PASSWORD)).status).toBe(200);
  });
});

describe('password reset that revokes sessions', () => {
  it('ends every session of the user, cached ones included', async () => {
    const h = await startMailHarness('outbox', { revokeSessionsOnPasswordReset: true });
    try {
      const { email, token: sessionToken } = await member(h);
      const bearer = { headers: { authorization: `Bearer ${sessionToken}` } };
      const anonymous = new TestClient(h.daemon.url);
      // Served from memory from now on, until something invalidates it.
      expect((await anonymous.get('/api/auth/get-session', bearer)).json.user.email).toBe(email);
      await anonymous.post('/api/auth/request-password-reset', { email });
      const token = /--token ([A-Za-z0-9]{24})/.exec((await h.latest(email)).text)![1]!;
      await anonymous.post('/api/auth/reset-password', { newPassword: NEW_PASSWORD, token });
      expect((await anonymous.get('/api/auth/get-session', bearer)).text).toBe('null');
    } finally {
      await h.stop();
    }
  });
});
