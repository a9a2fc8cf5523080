import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });

describe('POST /api/auth/sign-in/email', () => {
  it('signs in with the right password and answers token, user and redirect:false', async () => {
    const { email, user } = await signUpUser(client());
    const c = client();
    const response = await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ redirect: false, token: expect.stringMatching(/^[A-Za-z0-9]{32}$/), user });
    expect(response.headers.location).toBeUndefined();
    expect((await c.get('/api/auth/get-session')).json.user.id).toBe(user.id);
  });

  it('matches the address case-insensitively', async () => {
    const { email } = await signUpUser(client());
    const response = await client().post('/api/auth/sign-in/email', {
      email: email.toUpperCase(),
      password: DEFAULT_PASSWORD,
    });
    expect(response.status).toBe(200);
  });

  it('issues a new session on every sign-in (no fixation)', async () => {
    const { email, token } = await signUpUser(client());
    const again = await client().post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    expect(again.json.token).not.toBe(token);
  });

  it('with a callbackURL answers redirect:true, url and a Location header', async () => {
    const { email } = await signUpUser(client());
    const response = await client().post('/api/auth/sign-in/email', {
      email,
      password: DEFAULT_PASSWORD,
      callbackURL: '/dashboard?tab=1',
    });
    expect(response.status).toBe(200);
    expect(response.json.redirect).toBe(true);
    expect(response.json.url).toBe('/dashboard?tab=1');
    expect(response.headers.location).toBe('/dashboard?tab=1');
  });

  it('answers unknown address, wrong password and missing credential account identically', async () => {
    const { email } = await signUpUser(client());
    const { email: socialOnly, user } = await signUpUser(client());
    await daemon().core.db('accounts').where({ user_id: user.id }).del();
    const answers = await Promise.all([
      client().post('/api/auth/sign-in/email', { email: uniqueEmail('nobody'), password: DEFAULT_PASSWORD }),
      client().post('/api/auth/sign-in/email', { email, password: 'wrong password here' }),
      client().post('/api/auth/sign-in/email', { email: socialOnly, password: DEFAULT_PASSWORD }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ code: 'INVALID_EMAIL_OR_PASSWORD', message: 'Invalid email or password' });
      expect(answer.setCookies).toEqual([]);
    }
    const headerNames = answers.map((answer) =>
      Object.keys(answer.headers)
        .filter((name) => name !== 'date')
        .sort()
        .join(','),
    );
    expect(new Set(headerNames).size).toBe(1);
  });

  it('refuses a string that is not an e-mail with INVALID_EMAIL', async () => {
    const response = await client().post('/api/auth/sign-in/email', {
      email: 'not-an-email',
      password: DEFAULT_PASSWORD,
    });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ code: 'INVALID_EMAIL', message: 'Invalid email' });
  });

  it('does not truncate long passwords: 100 characters round-trip, a shared 72-byte prefix does not sign in', async () => {
    const long = 'p'.repeat(72) + 'A'.repeat(28);
    const sharesFirst72Bytes = 'p'.repeat(72) + 'B'.repeat(28);
    const { email } = await signUpUser(client(), { password: long });
    expect((await client().post('/api/auth/sign-in/email', { email, password: long })).status).toBe(200);
    expect((await client().post('/api/auth/sign-in/email', { email, password: sharesFirst72Bytes })).status).toBe(401);
    // Multi-byte characters: 40 of them are 120 bytes, well past bcrypt's 72.
    const emoji = '🔐'.repeat(20) + 'é'.repeat(20);
    const { email: email2 } = await signUpUser(client(), { password: emoji });
    expect((await client().post('/api/auth/sign-in/email', { email: email2, password: emoji })).status).toBe(200);
    expect(
      (await client().post('/api/auth/sign-in/email', { email: email2, password: '🔐'.repeat(20) + 'e'.repeat(20) }))
        .status,
    ).toBe(401);
  });

  it('with rememberMe false sets no Max-Age and a dont_remember cookie', async () => {
    const { email } = await signUpUser(client());
    const response = await client().post('/api/auth/sign-in/email', {
      email,
      password: DEFAULT_PASSWORD,
      rememberMe: false,
    });
    const session = response.setCookies.find((value) => value.startsWith('better-auth.session_token='))!;
    expect(session).not.toMatch(/Max-Age/);
    expect(response.setCookies.some((value) => value.startsWith('better-auth.dont_remember='))).toBe(true);
  });

  it('stores only a digest of the session token', async () => {
    const { token } = await signUpUser(client());
    const rows = await daemon().core.db('sessions').select('token_hash');
    expect(rows.some((row) => row.token_hash === token)).toBe(false);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });
});
