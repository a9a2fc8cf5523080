import { describe, expect, it } from 'vitest';
import { DAY, HOUR, SECOND } from '../../src/core/kernel/clock.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser } from '../helpers/http.js';

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });

const sessionCookie = (setCookies: string[]) =>
  setCookies.find((value) => value.startsWith('better-auth.session_token='));

describe('GET /api/auth/get-session', () => {
  it('answers a literal null without a session, with no-store caching headers', async () => {
    const response = await client().get('/api/auth/get-session');
    expect(response.status).toBe(200);
    expect(response.text).toBe('null');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
  });

  it('returns the session and user shapes of Better Auth', async () => {
    const c = client();
    const { token, user } = await signUpUser(c);
    const response = await c.get('/api/auth/get-session', { headers: { 'user-agent': 'till-test/1' } });
    expect(response.json).toEqual({
      session: {
        id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
        token,
        userId: user.id,
        expiresAt: '2026-11-28T12:00:00.000Z',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        ipAddress: expect.any(String),
        userAgent: expect.any(String),
        activeOrganizationId: null,
      },
      user,
    });
  });

  it('treats a cookie with a forged signature as no session and clears the cookies', async () => {
    const c = client();
    const { token } = await signUpUser(c);
    c.cookies.set('better-auth.session_token', `${token}.${'A'.repeat(43)}%3D`);
    const response = await c.get('/api/auth/get-session');
    expect(response.text).toBe('null');
    expect(response.setCookies.filter((value) => /Max-Age=0/.test(value))).toHaveLength(3);
  });

  it('accepts Authorization: Bearer with the raw token or the signed cookie value', async () => {
    const c = client();
    const { token, user } = await signUpUser(c);
    const raw = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(raw.json.user.id).toBe(user.id);
    const signed = c.cookies.get('better-auth.session_token')!;
    const viaSigned = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${signed}` },
    });
    expect(viaSigned.json.user.id).toBe(user.id);
    const bogus = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: 'Bearer nope' },
    });
    expect(bogus.text).toBe('null');
  });

  it('ends a session at expiresAt: null, cookies cleared, row deleted', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    daemon().clock.advance(7 * DAY + SECOND);
    const response = await c.get('/api/auth/get-session');
    expect(response.text).toBe('null');
    expect(response.setCookies.filter((value) => /Max-Age=0/.test(value))).toHaveLength(3);
    expect(await daemon().core.db('sessions').where({ user_id: user.id }).first()).toBeUndefined();
  });

  it('slides the expiry once the session is older than the update age, and not before', async () => {
    const c = client();
    await signUpUser(c);
    const first = await c.get('/api/auth/get-session');
    daemon().clock.advance(DAY - HOUR);
    const early = await c.get('/api/auth/get-session');
    expect(early.json.session.expiresAt).toBe(first.json.session.expiresAt);
    expect(sessionCookie(early.setCookies)).toBeUndefined();
    daemon().clock.advance(2 * HOUR);
    const refreshed = await c.get('/api/auth/get-session');
    expect(new Date(refreshed.json.session.expiresAt).getTime()).toBe(daemon().clock.now().getTime() + 7 * DAY);
    expect(sessionCookie(refreshed.setCookies)).toMatch(/Max-Age=604800/);
    // disableRefresh keeps the expiry where it is even when due.
    daemon().clock.advance(DAY + HOUR);
    const kept = await c.get('/api/auth/get-session', { query: { disableRefresh: 'true' } });
    expect(kept.json.session.expiresAt).toBe(refreshed.json.session.expiresAt);
  });

  it('never slides a rememberMe:false session', async () => {
    const c = client();
    const { email } = await signUpUser(client());
    await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD, rememberMe: false });
    const first = await c.get('/api/auth/get-session');
    daemon().clock.advance(23 * HOUR);
    const later = await c.get('/api/auth/get-session');
    expect(later.json.session.expiresAt).toBe(first.json.session.expiresAt);
    daemon().clock.advance(2 * HOUR);
    expect((await c.get('/api/auth/get-session')).text).toBe('null');
  });

  it('rejects invalid query values with VALIDATION_ERROR', async () => {
    const response = await client().get('/api/auth/get-session', { query: { disableRefresh: 'maybe' } });
    expect(response.status).toBe(400);
    expect(response.json.code).toBe('VALIDATION_ERROR');
    expect(response.json.message).toMatch(/^\[query\.disableRefresh\] /);
  });
});

describe('sign-out and session lists', () => {
  it('POST /sign-out ends the session and clears cookies, and succeeds without a session', async () => {
    const c = client();
    const { token } = await signUpUser(c);
    const out = await c.post('/api/auth/sign-out');
    expect(out.json).toEqual({ success: true });
    expect(out.setCookies.filter((value) => /Max-Age=0/.test(value))).toHaveLength(3);
    const replay = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(replay.text).toBe('null');
    expect((await client().post('/api/auth/sign-out')).json).toEqual({ success: true });
  });

  it('lists the user own live sessions only, with revocation handles', async () => {
    const a = client();
    const { email, token } = await signUpUser(a);
    const b = client();
    await b.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    await signUpUser(client());
    const list = await a.get('/api/auth/list-sessions');
    expect(list.status).toBe(200);
    expect(list.json).toHaveLength(2);
    expect(list.json.map((s: { token: string }) => s.token)).toContain(token);
    const other = list.json.find((s: { token: string }) => s.token !== token);
    expect(other.token).toMatch(/^[0-9a-f]{64}$/);
    const revoke = await a.post('/api/auth/revoke-session', { token: other.token });
    expect(revoke.json).toEqual({ status: true });
    expect((await b.get('/api/auth/get-session')).text).toBe('null');
    expect((await a.get('/api/auth/get-session')).json.session.token).toBe(token);
  });

  it('requires a fresh session to list sessions', async () => {
    const c = client();
    await signUpUser(c);
    daemon().clock.advance(DAY + SECOND);
    const response = await c.get('/api/auth/list-sessions');
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ code: 'SESSION_NOT_FRESH', message: 'Session is not fresh' });
  });

  it('revoke-session ignores tokens of other users and unknown tokens', async () => {
    const a = client();
    const { token: victimToken } = await signUpUser(client());
    await signUpUser(a);
    expect((await a.post('/api/auth/revoke-session', { token: victimToken })).json).toEqual({ status: true });
    expect((await a.post('/api/auth/revoke-session', { token: 'unknown' })).json).toEqual({ status: true });
    const victim = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${victimToken}` },
    });
    expect(victim.json.session.token).toBe(victimToken);
  });

  it('revoke-session of the current token clears the cookies', async () => {
    const c = client();
    const { token } = await signUpUser(c);
    const response = await c.post('/api/auth/revoke-session', { token });
    expect(response.setCookies.filter((value) => /Max-Age=0/.test(value))).toHaveLength(3);
    expect((await c.get('/api/auth/get-session')).text).toBe('null');
  });

  it('revoke-other-sessions keeps the current one; revoke-sessions ends all', async () => {
    const a = client();
    const { email } = await signUpUser(a);
    const b = client();
    const c = client();
    await b.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    await c.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    expect((await a.post('/api/auth/revoke-other-sessions')).json).toEqual({ status: true });
    expect((await a.get('/api/auth/get-session')).json).not.toBeNull();
    expect((await b.get('/api/auth/get-session')).text).toBe('null');
    await b.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
    const all = await a.post('/api/auth/revoke-sessions');
    expect(all.json).toEqual({ status: true });
    expect(all.setCookies.filter((value) => /Max-Age=0/.test(value))).toHaveLength(3);
    expect((await b.get('/api/auth/get-session')).text).toBe('null');
    expect((await a.get('/api/auth/get-session')).text).toBe('null');
  });

  it('every session route needs a session: 401 UNAUTHORIZED', async () => {
    const anonymous = client();
    for (const [method, path] of [
      ['GET', '/api/auth/list-sessions'],
      ['POST', '/api/auth/revoke-session'],
      ['POST', '/api/auth/revoke-sessions'],
      ['POST', '/api/auth/revoke-other-sessions'],
      ['POST', '/api/auth/update-user'],
      ['POST', '/api/auth/change-password'],
      ['POST', '/api/auth/verify-password'],
    ] as const) {
      const body = {
        '/api/auth/revoke-session': { token: 'x' },
        '/api/auth/update-user': { name: 'x' },
        '/api/auth/change-password': { currentPassword: 'a', newPassword: 'b'.repeat(8) },
        '/api/auth/verify-password': { password: 'x' },
      }[path as string];
      const response = method === 'GET' ? await anonymous.get(path) : await anonymous.post(path, body ?? {});
      expect(response.status, path).toBe(401);
      expect(response.json, path).toEqual({ code: 'UNAUTHORIZED', message: 'Unauthorized' });
    }
  });
});
