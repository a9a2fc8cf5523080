import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/kernel/clock.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { DEFAULT_PASSWORD, TestClient, signUpUser } from '../helpers/http.js';

// get-session serves recently resolved sessions from memory. Every change Till makes to a session or a user must
// be visible on the very next request.

const daemon = useTestDaemon();
const client = () => new TestClient(daemon().url, { origin: daemon().url });

async function signedInTwice() {
  const a = client();
  const { email, user } = await signUpUser(a);
  const b = client();
  await b.post('/api/auth/sign-in/email', { email, password: DEFAULT_PASSWORD });
  // Both sessions are now cached.
  expect((await a.get('/api/auth/get-session')).json.user.id).toBe(user.id);
  expect((await b.get('/api/auth/get-session')).json.user.id).toBe(user.id);
  return { a, b, user };
}

describe('in-memory session cache', () => {
  it('serves repeated get-session calls from memory', async () => {
    const { user } = await signedInTwice();
    const cached = daemon().core.sessions.cacheSize();
    expect(cached).toBeGreaterThanOrEqual(2);
    // A row removed behind Till's back is still served until disableCookieCache forces a read...
    const c = client();
    const { user: other } = await signUpUser(c);
    await c.get('/api/auth/get-session');
    await daemon().core.db('sessions').where({ user_id: other.id }).del();
    expect((await c.get('/api/auth/get-session')).json.user.id).toBe(other.id);
    expect((await c.get('/api/auth/get-session', { query: { disableCookieCache: 'true' } })).text).toBe('null');
    expect(user.id).not.toBe(other.id);
  });

  it('...or until the entry is a minute old', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    await c.get('/api/auth/get-session');
    await daemon().core.db('sessions').where({ user_id: user.id }).del();
    daemon().clock.advance(61 * SECOND);
    expect((await c.get('/api/auth/get-session')).text).toBe('null');
  });

  it('forgets a session at sign-out', async () => {
    const { a } = await signedInTwice();
    const token = a.cookies.get('better-auth.session_token')!;
    await a.post('/api/auth/sign-out');
    const replay = await new TestClient(daemon().url).get('/api/auth/get-session', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(replay.text).toBe('null');
  });

  it('forgets revoked sessions at once', async () => {
    const { a, b } = await signedInTwice();
    await a.post('/api/auth/revoke-other-sessions');
    expect((await b.get('/api/auth/get-session')).text).toBe('null');
    const again = await signedInTwice();
    const list = await again.a.get('/api/auth/list-sessions');
    const other = list.json.find((s: { token: string }) => /^[0-9a-f]{64}$/.test(s.token));
    await again.a.post('/api/auth/revoke-session', { token: other.token });
    expect((await again.b.get('/api/auth/get-session')).text).toBe('null');
    const third = await signedInTwice();
    await third.a.post('/api/auth/revoke-sessions');
    expect((await third.b.get('/api/auth/get-session')).text).toBe('null');
  });

  it('shows profile changes at once', async () => {
    const { a, b } = await signedInTwice();
    await a.post('/api/auth/update-user', { name: 'Changed' });
    expect((await b.get('/api/auth/get-session')).json.user.name).toBe('Changed');
  });

  it('forgets every session when a password change revokes the others', async () => {
    const { a, b } = await signedInTwice();
    await a.post('/api/auth/change-password', {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'fresh password 123',
      revokeOtherSessions: true,
    });
    expect((await b.get('/api/auth/get-session')).text).toBe('null');
    expect((await a.get('/api/auth/get-session')).json).not.toBeNull();
  });

  it('still expires and refreshes cached sessions on time', async () => {
    const c = client();
    await signUpUser(c);
    const first = await c.get('/api/auth/get-session');
    daemon().clock.advance(24 * 3600 * SECOND + SECOND);
    const refreshed = await c.get('/api/auth/get-session');
    expect(refreshed.json.session.expiresAt).not.toBe(first.json.session.expiresAt);
    daemon().clock.advance(7 * 24 * 3600 * SECOND + SECOND);
    expect((await c.get('/api/auth/get-session')).text).toBe('null');
  });
});
