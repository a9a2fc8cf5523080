import { describe, expect, it } from 'vitest';
import { DEFAULT_SESSION } from '../../src/core/config/index.js';
import { SECOND } from '../../src/core/kernel/clock.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';

const daemon = useTestDaemon({ session: { ...DEFAULT_SESSION, cookieCache: { enabled: true, maxAge: 60 } } });
const client = () => new TestClient(daemon().url, { origin: daemon().url });

describe('session cookie cache (optional, 60 s)', () => {
  it('sets a signed session_data cookie with Max-Age 60 and serves get-session from it', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    const dataCookie = [...c.cookies.keys()].find((name) => name === 'better-auth.session_data');
    expect(dataCookie).toBeDefined();
    // With the row gone, only the cache can answer; disableCookieCache goes to the database.
    await daemon().core.db('sessions').where({ user_id: user.id }).del();
    expect((await c.get('/api/auth/get-session')).json.user.id).toBe(user.id);
    expect((await c.get('/api/auth/get-session', { query: { disableCookieCache: 'true' } })).text).toBe('null');
  });

  it('stops trusting the cache after its max age', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    await daemon().core.db('sessions').where({ user_id: user.id }).del();
    daemon().clock.advance(61 * SECOND);
    expect((await c.get('/api/auth/get-session')).text).toBe('null');
  });

  it('ignores a tampered cache cookie', async () => {
    const c = client();
    const { user } = await signUpUser(c);
    const value = c.cookies.get('better-auth.session_data')!;
    const decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    decoded.session.user.name = 'Mallory';
    c.cookies.set('better-auth.session_data', Buffer.from(JSON.stringify(decoded)).toString('base64url'));
    const response = await c.get('/api/auth/get-session');
    expect(response.json.user).toEqual({ ...user, name: user.name });
  });

  it('refuses data that would not fit the 4093-character cookie, and writes nothing', async () => {
    // Names and images are capped at their column widths, so a long user agent (kept on the session) fills the rest.
    const bigClient = () =>
      new TestClient(daemon().url, { origin: daemon().url, headers: { 'user-agent': 'u'.repeat(1800) } });
    const image = 'https://example.com/' + 'i'.repeat(2000);
    const email = uniqueEmail('big');
    const signUp = await bigClient().post('/api/auth/sign-up/email', {
      name: 'n'.repeat(255),
      image,
      email,
      password: 'long enough password',
    });
    expect(signUp.status).toBe(400);
    expect(signUp.json).toEqual({
      code: 'SESSION_DATA_TOO_LARGE',
      message:
        'Session data is too large to store in the cookie. Please disable session cookie caching or reduce the size of the session data',
    });
    expect(await daemon().core.db('users').where({ email }).first()).toBeUndefined();
    const c = bigClient();
    const { user } = await signUpUser(c);
    const update = await c.post('/api/auth/update-user', { name: 'n'.repeat(255), image });
    expect(update.status).toBe(400);
    expect(update.json.code).toBe('SESSION_DATA_TOO_LARGE');
    expect((await daemon().core.db('users').where({ id: user.id }).first()).image).toBeNull();
  });
});
