import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });

describe('POST /api/auth/sign-up/email', () => {
  it('creates the user, signs them in and sets the session cookie', async () => {
    const c = client();
    const email = uniqueEmail();
    const response = await c.post('/api/auth/sign-up/email', {
      name: 'Ada Lovelace',
      email,
      password: DEFAULT_PASSWORD,
      image: 'https://example.com/a.png',
    });
    expect(response.status).toBe(200);
    expect(response.json.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(response.json.user).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      name: 'Ada Lovelace',
      email,
      emailVerified: false,
      image: 'https://example.com/a.png',
      createdAt: '2026-11-21T12:00:00.000Z',
      updatedAt: '2026-11-21T12:00:00.000Z',
    });
    const cookie = response.setCookies.find((value) => value.startsWith('better-auth.session_token='));
    expect(cookie).toMatch(/; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(response.headers['set-auth-token']).toBeTruthy();
    const session = await c.get('/api/auth/get-session');
    expect(session.json.user.id).toBe(response.json.user.id);
    expect(session.json.session.token).toBe(response.json.token);
  });

  it('stores e-mail addresses lowercased and refuses the same address in another case', async () => {
    const email = uniqueEmail('MiXeD');
    const first = await client().post('/api/auth/sign-up/email', { name: 'A', email, password: DEFAULT_PASSWORD });
    expect(first.json.user.email).toBe(email.toLowerCase());
    const second = await client().post('/api/auth/sign-up/email', {
      name: 'B',
      email: email.toUpperCase(),
      password: DEFAULT_PASSWORD,
    });
    expect(second.status).toBe(422);
    expect(second.json).toEqual({
      code: 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL',
      message: 'User already exists. Use another email.',
    });
  });

  it('gives exactly one account to concurrent sign-ups with one address', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        client().post('/api/auth/sign-up/email', { name: 'R', email, password: DEFAULT_PASSWORD }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(4);
    const rows = await daemon().core.db('users').where({ email }).count({ n: '*' });
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('enforces the password length bounds (8 to 128 characters)', async () => {
    const short = await client().post('/api/auth/sign-up/email', {
      name: 'S',
      email: uniqueEmail(),
      password: '1234567',
    });
    expect(short.status).toBe(400);
    expect(short.json).toEqual({ code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });
    const long = await client().post('/api/auth/sign-up/email', {
      name: 'L',
      email: uniqueEmail(),
      password: 'x'.repeat(129),
    });
    expect(long.status).toBe(400);
    expect(long.json).toEqual({ code: 'PASSWORD_TOO_LONG', message: 'Password too long' });
    expect(
      (await client().post('/api/auth/sign-up/email', { name: 'E', email: uniqueEmail(), password: '12345678' }))
        .status,
    ).toBe(200);
    expect(
      (await client().post('/api/auth/sign-up/email', { name: 'M', email: uniqueEmail(), password: 'y'.repeat(128) }))
        .status,
    ).toBe(200);
  });

  it('writes nothing when it refuses', async () => {
    const email = uniqueEmail('refused');
    await client().post('/api/auth/sign-up/email', { name: 'S', email, password: 'short' });
    await client().post('/api/auth/sign-up/email', { name: 'S', email, password: DEFAULT_PASSWORD, extra: true });
    expect(await daemon().core.db('users').where({ email }).first()).toBeUndefined();
  });

  it('validates e-mail syntax per spec: 254 characters in all, 64 in the local part, a real domain', async () => {
    const local64 = 'a'.repeat(64);
    expect(
      (
        await client().post('/api/auth/sign-up/email', {
          name: 'x',
          email: `${local64}@example.com`,
          password: DEFAULT_PASSWORD,
        })
      ).status,
    ).toBe(200);
    for (const email of [
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.com`,
      'a@localhost',
      'not-an-email',
      'a@b.c1',
    ]) {
      const response = await client().post('/api/auth/sign-up/email', { name: 'x', email, password: DEFAULT_PASSWORD });
      expect(response.status, email).toBe(400);
      expect(response.json, email).toEqual({ code: 'VALIDATION_ERROR', message: '[body.email] Invalid email address' });
    }
  });

  it('accepts a form-encoded body, as Better Auth does for HTML forms', async () => {
    const email = uniqueEmail('form');
    const response = await client().call('POST', '/api/auth/sign-up/email', {
      rawBody: new URLSearchParams({ name: 'Form', email, password: DEFAULT_PASSWORD }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(200);
    expect(response.json.user.email).toBe(email);
  });

  it('with rememberMe false issues a browser-session cookie and a one-day session', async () => {
    const c = client();
    const { token } = await signUpUser(c, { rememberMe: false });
    const session = await c.get('/api/auth/get-session');
    expect(session.json.session.token).toBe(token);
    expect(session.json.session.expiresAt).toBe('2026-11-22T12:00:00.000Z');
  });
});
