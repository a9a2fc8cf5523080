import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createAuthClient } from 'better-auth/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../src/core/kernel/clock.js';
import { TEST_SECRET, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';

// Better Auth's own client (reference §10) as a black-box conformance client for /api/auth. The version is pinned:
// the client's request shapes change between minors, and this file speaks for 1.7.25 exactly.
const PINNED_VERSION = '1.7.25';
const SESSION_COOKIE = 'better-auth.session_token';
const PASSWORD = 'correct horse battery';

/** A cookie jar as a browser keeps one: Set-Cookie is stored, Max-Age=0 deletes, Cookie is sent back. */
class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  absorb(headers: Headers): void {
    for (const cookie of headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The session token inside the signed session cookie (`token.base64(HMAC)`, URL-encoded). */
  sessionToken(): string | undefined {
    const raw = this.cookies.get(SESSION_COOKIE);
    if (raw === undefined) return undefined;
    const decoded = decodeURIComponent(raw);
    return decoded.slice(0, decoded.lastIndexOf('.'));
  }
}

function makeClient(baseUrl: string, options: { jar?: CookieJar; origin?: string | null } = {}) {
  const jar = options.jar ?? new CookieJar();
  const origin = options.origin === undefined ? baseUrl : options.origin;
  const client = createAuthClient({
    baseURL: baseUrl,
    fetchOptions: {
      customFetchImpl: async (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (jar.cookies.size > 0) headers.set('cookie', jar.header());
        if (origin !== null) headers.set('origin', origin);
        const response = await fetch(input, { ...init, headers });
        jar.absorb(response.headers);
        return response;
      },
    },
  });
  return { client, jar };
}

type Client = ReturnType<typeof makeClient>;

let daemon: TestDaemon;
const started = new Date('2026-11-21T12:00:00.000Z');

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

function newClient(origin?: string | null): Client {
  return makeClient(daemon.url, { origin });
}

async function signedUp(name = 'Ada'): Promise<Client & { email: string; userId: string; token: string }> {
  const c = newClient();
  const email = uniqueEmail('client');
  const { data, error } = await c.client.signUp.email({ name, email, password: PASSWORD });
  expect(error).toBeNull();
  return { ...c, email, userId: data!.user.id, token: data!.token! };
}

async function signedIn(email: string, password = PASSWORD): Promise<Client & { token: string }> {
  const c = newClient();
  const { data, error } = await c.client.signIn.email({ email, password });
  expect(error).toBeNull();
  return { ...c, token: data!.token };
}

async function sessionOf(c: Client) {
  const { data, error } = await c.client.getSession();
  expect(error).toBeNull();
  return data;
}

describe('Better Auth client against Till', () => {
  it('is the pinned client version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../node_modules/better-auth/package.json', import.meta.url), 'utf8'));
    expect(pkg.version).toBe(PINNED_VERSION);
  });

  it('$fetch("/ok") answers {ok: true}', async () => {
    const { client } = newClient();
    const { data, error } = await client.$fetch('/ok');
    expect(error).toBeNull();
    expect(data).toEqual({ ok: true });
  });

  it('getSession without a session is null, not an error', async () => {
    const c = newClient();
    const { data, error } = await c.client.getSession();
    expect(error).toBeNull();
    expect(data).toBeNull();
  });

  it('signUp.email returns the user and a token and signs in; signOut ends the session', async () => {
    daemon.clock.set(started);
    const c = newClient();
    const email = uniqueEmail('SignUp');
    const { data, error } = await c.client.signUp.email({ name: 'Ada Lovelace', email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data).not.toBeNull();
    const { user, token } = data!;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(user.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(user.name).toBe('Ada Lovelace');
    expect(user.email).toBe(email.toLowerCase());
    expect(user.emailVerified).toBe(false);
    expect(user.image ?? null).toBeNull();
    expect(user.createdAt).toBeInstanceOf(Date);
    expect(user.updatedAt).toBeInstanceOf(Date);
    expect(user.createdAt.toISOString()).toBe(started.toISOString());
    expect(user.updatedAt.toISOString()).toBe(started.toISOString());

    // The session cookie is the signed token, byte-compatible with Better Auth's.
    const raw = decodeURIComponent(c.jar.cookies.get(SESSION_COOKIE)!);
    expect(raw).toBe(`${token}.${createHmac('sha256', TEST_SECRET).update(token!).digest('base64')}`);

    const session = await sessionOf(c);
    expect(session?.user.id).toBe(user.id);
    expect(session?.session.token).toBe(token);

    const out = await c.client.signOut();
    expect(out.error).toBeNull();
    expect(out.data).toEqual({ success: true });
    expect(c.jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(await sessionOf(c)).toBeNull();
  });

  it('signIn.email with the right password signs in; a wrong password is 401 INVALID_EMAIL_OR_PASSWORD', async () => {
    const owner = await signedUp('Grace');
    await owner.client.signOut();

    const c = newClient();
    const { data, error } = await c.client.signIn.email({ email: owner.email.toUpperCase(), password: PASSWORD });
    expect(error).toBeNull();
    expect(data!.redirect).toBe(false);
    expect(data!.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(data!.token).not.toBe(owner.token);
    expect(data!.url).toBeUndefined();
    expect(data!.user.id).toBe(owner.userId);
    expect(data!.user.email).toBe(owner.email);
    expect(data!.user.createdAt).toBeInstanceOf(Date);
    expect(c.jar.sessionToken()).toBe(data!.token);
    expect((await sessionOf(c))?.user.id).toBe(owner.userId);

    for (const attempt of [
      { email: owner.email, password: 'not the password' },
      { email: uniqueEmail('nobody'), password: PASSWORD },
    ]) {
      const fresh = newClient();
      const wrong = await fresh.client.signIn.email(attempt);
      expect(wrong.data).toBeNull();
      expect(wrong.error).toMatchObject({ status: 401, code: 'INVALID_EMAIL_OR_PASSWORD', message: 'Invalid email or password' });
      expect(fresh.jar.cookies.size).toBe(0);
    }
  });

  it('signIn.email passes callbackURL and rememberMe through as Better Auth does', async () => {
    daemon.clock.set(started);
    const owner = await signedUp('Ida');

    const redirected = newClient();
    const withCallback = await redirected.client.signIn.email({ email: owner.email, password: PASSWORD, callbackURL: '/dashboard' });
    expect(withCallback.error).toBeNull();
    expect(withCallback.data).toMatchObject({ redirect: true, url: '/dashboard' });
    expect(withCallback.data!.user.id).toBe(owner.userId);

    // rememberMe false: a browser-session cookie, the signed dont_remember marker, and a one-day session.
    const brief = newClient();
    const forgetful = await brief.client.signIn.email({ email: owner.email, password: PASSWORD, rememberMe: false });
    expect(forgetful.error).toBeNull();
    expect(brief.jar.cookies.has('better-auth.dont_remember')).toBe(true);
    const session = await sessionOf(brief);
    expect(session?.session.expiresAt.getTime()).toBe(started.getTime() + DAY);
  });

  it('signUp.email accepts image and callbackURL', async () => {
    const c = newClient();
    const { data, error } = await c.client.signUp.email({
      name: 'Lynn',
      email: uniqueEmail('image'),
      password: PASSWORD,
      image: 'https://example.com/lynn.png',
      callbackURL: '/welcome',
    });
    expect(error).toBeNull();
    expect(data!.user.image).toBe('https://example.com/lynn.png');
    expect((await sessionOf(c))?.user.image).toBe('https://example.com/lynn.png');
  });

  it('getSession returns session and user with dates revived into Date objects', async () => {
    daemon.clock.set(started);
    const c = await signedUp('Hedy');
    const data = await sessionOf(c);
    expect(data).not.toBeNull();
    const { session, user } = data!;
    expect(Object.keys(session).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'ipAddress', 'token', 'updatedAt', 'userAgent', 'userId'].sort(),
    );
    expect(session.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(session.token).toBe(c.token);
    expect(session.userId).toBe(c.userId);
    expect(typeof session.ipAddress).toBe('string');
    expect(typeof session.userAgent).toBe('string');
    for (const date of [session.expiresAt, session.createdAt, session.updatedAt]) expect(date).toBeInstanceOf(Date);
    expect(session.createdAt.getTime()).toBe(started.getTime());
    expect(session.expiresAt.getTime()).toBe(started.getTime() + 7 * DAY);

    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'id', 'image', 'name', 'updatedAt'].sort());
    expect(user).toMatchObject({ id: c.userId, name: 'Hedy', email: c.email, emailVerified: false, image: null });
    expect(user.createdAt).toBeInstanceOf(Date);
    expect(user.updatedAt).toBeInstanceOf(Date);
  });

  it('getSession passes disableCookieCache and disableRefresh as query flags', async () => {
    const c = await signedUp('Sophie');
    const { data, error } = await c.client.getSession({ query: { disableCookieCache: true, disableRefresh: true } });
    expect(error).toBeNull();
    expect(data?.session.token).toBe(c.token);
  });

  it('updateUser changes the name and getSession shows it', async () => {
    daemon.clock.set(started);
    const c = await signedUp('Old Name');
    daemon.clock.advance(MINUTE);
    const { data, error } = await c.client.updateUser({ name: 'New Name', image: 'https://example.com/a.png' });
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    const session = await sessionOf(c);
    expect(session?.user.name).toBe('New Name');
    expect(session?.user.image).toBe('https://example.com/a.png');
    expect(session?.user.updatedAt.getTime()).toBe(started.getTime() + MINUTE);
    expect(session?.user.createdAt.getTime()).toBe(started.getTime());

    const cleared = await c.client.updateUser({ image: null });
    expect(cleared.error).toBeNull();
    expect((await sessionOf(c))?.user).toMatchObject({ name: 'New Name', image: null });

    // Better Auth refuses e-mail changes through update-user.
    const email = await c.client.updateUser({ email: uniqueEmail('other') } as never);
    expect(email.error).toMatchObject({ status: 400, code: 'EMAIL_CAN_NOT_BE_UPDATED' });
  });

  it('changePassword without revoking keeps other sessions and returns token null', async () => {
    const a = await signedUp('Katherine');
    const b = await signedIn(a.email);
    const newPassword = 'a brand new password';
    const { data, error } = await a.client.changePassword({ currentPassword: PASSWORD, newPassword, revokeOtherSessions: false });
    expect(error).toBeNull();
    expect(data!.token).toBeNull();
    expect(data!.user).toMatchObject({ id: a.userId, email: a.email });
    expect(data!.user.updatedAt).toBeInstanceOf(Date);
    expect(a.jar.sessionToken()).toBe(a.token);
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    expect((await sessionOf(b))?.user.id).toBe(a.userId);

    const old = await newClient().client.signIn.email({ email: a.email, password: PASSWORD });
    expect(old.error).toMatchObject({ status: 401, code: 'INVALID_EMAIL_OR_PASSWORD' });
    await signedIn(a.email, newPassword);
  });

  it('changePassword with revokeOtherSessions ends every other session and re-issues the cookie', async () => {
    const a = await signedUp('Dorothy');
    const b = await signedIn(a.email);
    const newPassword = 'another new password';
    const { data, error } = await a.client.changePassword({ currentPassword: PASSWORD, newPassword, revokeOtherSessions: true });
    expect(error).toBeNull();
    expect(data!.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(data!.token).not.toBe(a.token);
    expect(data!.user.id).toBe(a.userId);
    expect(a.jar.sessionToken()).toBe(data!.token);
    expect((await sessionOf(a))?.session.token).toBe(data!.token);
    expect(await sessionOf(b)).toBeNull();
  });

  it('changePassword with a wrong current password is 400 INVALID_PASSWORD; a short new one PASSWORD_TOO_SHORT', async () => {
    const a = await signedUp('Mary');
    const wrong = await a.client.changePassword({ currentPassword: 'not my password', newPassword: 'whatever it is now' });
    expect(wrong.data).toBeNull();
    expect(wrong.error).toMatchObject({ status: 400, code: 'INVALID_PASSWORD', message: 'Invalid password' });
    const short = await a.client.changePassword({ currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.error).toMatchObject({ status: 400, code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });
    // Nothing changed: the old password still works.
    await signedIn(a.email);
  });

  it('listSessions shows one session per jar; revokeSession ends the other one by the listed token', async () => {
    const a = await signedUp('Barbara');
    const b = await signedIn(a.email);
    const { data, error } = await a.client.listSessions();
    expect(error).toBeNull();
    expect(data).toHaveLength(2);
    const own = data!.find((session) => session.token === a.token);
    const other = data!.find((session) => session.token !== a.token);
    expect(own).toBeDefined();
    expect(other).toBeDefined();
    for (const session of data!) {
      expect(session.userId).toBe(a.userId);
      expect(session.expiresAt).toBeInstanceOf(Date);
      expect(session.createdAt).toBeInstanceOf(Date);
    }
    // Till stores only token digests: another session's token is its 64-hex digest, which still revokes it.
    expect(other!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(other!.id).toBe((await sessionOf(b))!.session.id);

    const revoked = await a.client.revokeSession({ token: other!.token });
    expect(revoked.error).toBeNull();
    expect(revoked.data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    const after = await a.client.listSessions();
    expect(after.data!.map((session) => session.token)).toEqual([a.token]);
  });

  it('revokeSession also accepts a real session token', async () => {
    const a = await signedUp('Frances');
    const b = await signedIn(a.email);
    const revoked = await a.client.revokeSession({ token: b.token });
    expect(revoked.data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.user.id).toBe(a.userId);

    // Someone else's token is a silent no-op, as in Better Auth.
    const stranger = await signedUp('Stranger');
    const foreign = await a.client.revokeSession({ token: stranger.token });
    expect(foreign.data).toEqual({ status: true });
    expect((await sessionOf(stranger))?.user.id).toBe(stranger.userId);
  });

  it('revokeOtherSessions keeps only the current session', async () => {
    const a = await signedUp('Radia');
    const b = await signedIn(a.email);
    const c = await signedIn(a.email);
    expect((await a.client.listSessions()).data).toHaveLength(3);
    const { data, error } = await a.client.revokeOtherSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect(await sessionOf(b)).toBeNull();
    expect(await sessionOf(c)).toBeNull();
    expect((await sessionOf(a))?.session.token).toBe(a.token);
    const list = await a.client.listSessions();
    expect(list.data!.map((session) => session.token)).toEqual([a.token]);
  });

  it('revokeSessions ends every session, the current one included, and clears the cookies', async () => {
    const a = await signedUp('Annie');
    const b = await signedIn(a.email);
    const { data, error } = await a.client.revokeSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect(a.jar.cookies.size).toBe(0);
    expect(await sessionOf(a)).toBeNull();
    expect(await sessionOf(b)).toBeNull();
  });

  it('session routes need a session: 401 UNAUTHORIZED', async () => {
    const c = newClient();
    for (const result of [await c.client.listSessions(), await c.client.updateUser({ name: 'x' }), await c.client.revokeOtherSessions()]) {
      expect(result.data).toBeNull();
      expect(result.error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', message: 'Unauthorized' });
    }
    // Signing out without a session still succeeds.
    expect((await c.client.signOut()).data).toEqual({ success: true });
  });

  it('listSessions on a session older than a day is 403 SESSION_NOT_FRESH', async () => {
    daemon.clock.set(started);
    const a = await signedUp('Evelyn');
    daemon.clock.advance(DAY + MINUTE);
    const { data, error } = await a.client.listSessions();
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 403, code: 'SESSION_NOT_FRESH', message: 'Session is not fresh' });
    daemon.clock.set(started);
  });

  it('sign-up errors reach the client with Better Auth codes', async () => {
    const a = await signedUp('Joan');
    for (const email of [a.email, a.email.toUpperCase()]) {
      const taken = newClient();
      const { data, error } = await taken.client.signUp.email({ name: 'Joan Again', email, password: PASSWORD });
      expect(data).toBeNull();
      expect(error).toMatchObject({ status: 422, code: 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL', message: 'User already exists. Use another email.' });
      expect(taken.jar.cookies.size).toBe(0);
    }

    const short = await newClient().client.signUp.email({ name: 'Shorty', email: uniqueEmail('short'), password: 'short' });
    expect(short.data).toBeNull();
    expect(short.error).toMatchObject({ status: 400, code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });

    const invalid = await newClient().client.signUp.email({ name: 'Bad', email: 'not-an-email', password: PASSWORD });
    expect(invalid.error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: '[body.email] Invalid email address' });
  });

  it("without Origin, Node's fetch (sec-fetch-mode: cors) is refused with 403 MISSING_OR_NULL_ORIGIN", async () => {
    const bare = newClient(null);
    const up = await bare.client.signUp.email({ name: 'No Origin', email: uniqueEmail('noorigin'), password: PASSWORD });
    expect(up.data).toBeNull();
    expect(up.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });
    expect(bare.jar.cookies.size).toBe(0);

    const a = await signedUp('Origin Owner');
    const inBare = await bare.client.signIn.email({ email: a.email, password: PASSWORD });
    expect(inBare.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN' });

    // The same through plain Node fetch, which adds sec-fetch-mode: cors on its own.
    const response = await fetch(`${daemon.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: a.email, password: PASSWORD }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });

    // A request carrying the session cookie but no Origin is refused too; an untrusted Origin is INVALID_ORIGIN.
    const noOrigin = makeClient(daemon.url, { jar: a.jar, origin: null });
    const out = await noOrigin.client.signOut();
    expect(out.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN' });
    const evil = makeClient(daemon.url, { jar: a.jar, origin: 'https://evil.example' });
    const evilOut = await evil.client.revokeSessions();
    expect(evilOut.error).toMatchObject({ status: 403, code: 'INVALID_ORIGIN', message: 'Invalid origin' });
    expect((await sessionOf(a))?.user.id).toBe(a.userId);
  });
});

describe('Better Auth client against Till with the session cookie cache on', () => {
  let cached: TestDaemon;
  beforeAll(async () => {
    cached = await startTestDaemon({
      session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600, freshAge: 24 * 3600, cookieCache: { enabled: true, maxAge: 300 } },
    });
  });
  afterAll(async () => {
    await cached?.stop();
  });

  it('keeps session_data in the jar and shows profile changes at once', async () => {
    const c = makeClient(cached.url);
    const { error } = await c.client.signUp.email({ name: 'Cached', email: uniqueEmail('cached'), password: PASSWORD });
    expect(error).toBeNull();
    expect(c.jar.cookies.has('better-auth.session_data')).toBe(true);
    const first = await c.client.getSession();
    expect(first.data?.user.name).toBe('Cached');
    expect(first.data?.session.expiresAt).toBeInstanceOf(Date);

    expect((await c.client.updateUser({ name: 'Renamed' })).data).toEqual({ status: true });
    expect((await c.client.getSession()).data?.user.name).toBe('Renamed');
    expect((await c.client.getSession({ query: { disableCookieCache: true } })).data?.user.name).toBe('Renamed');

    expect((await c.client.signOut()).data).toEqual({ success: true });
    expect(c.jar.cookies.size).toBe(0);
    expect((await c.client.getSession()).data).toBeNull();
  });
});
