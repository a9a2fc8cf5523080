import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/kernel/clock.js';
import { TEST_SECRET } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, PINNED_VERSION, SESSION_COOKIE, sessionOf, started, useClientDaemon } from './client.js';

// Better Auth's own client (1.7.25, see client.ts) against /api/auth: sign-up, sign-in, sign-out and get-session.
// User, password and session management are in better-auth-client-sessions.test.ts; Origin checks and the session
// cookie cache in better-auth-client-origin.test.ts.

const { daemon, newClient, signedUp } = useClientDaemon();

describe('Better Auth client against Till', () => {
  it('is the pinned client version', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../node_modules/better-auth/package.json', import.meta.url), 'utf8'),
    );
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
    daemon().clock.set(started);
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
      expect(wrong.error).toMatchObject({
        status: 401,
        code: 'INVALID_EMAIL_OR_PASSWORD',
        message: 'Invalid email or password',
      });
      expect(fresh.jar.cookies.size).toBe(0);
    }
  });

  it('signIn.email passes callbackURL and rememberMe through as Better Auth does', async () => {
    daemon().clock.set(started);
    const owner = await signedUp('Ida');

    const redirected = newClient();
    const withCallback = await redirected.client.signIn.email({
      email: owner.email,
      password: PASSWORD,
      callbackURL: '/dashboard',
    });
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
    daemon().clock.set(started);
    const c = await signedUp('Hedy');
    const data = await sessionOf(c);
    expect(data).not.toBeNull();
    const { session, user } = data!;
    expect(Object.keys(session).sort()).toEqual(
      [
        'activeOrganizationId',
        'createdAt',
        'expiresAt',
        'id',
        'ipAddress',
        'token',
        'updatedAt',
        'userAgent',
        'userId',
      ].sort(),
    );
    expect(session.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(session.token).toBe(c.token);
    expect(session.userId).toBe(c.userId);
    expect(typeof session.ipAddress).toBe('string');
    expect(typeof session.userAgent).toBe('string');
    for (const date of [session.expiresAt, session.createdAt, session.updatedAt]) expect(date).toBeInstanceOf(Date);
    expect(session.createdAt.getTime()).toBe(started.getTime());
    expect(session.expiresAt.getTime()).toBe(started.getTime() + 7 * DAY);

    expect(Object.keys(user).sort()).toEqual(
      ['createdAt', 'email', 'emailVerified', 'id', 'image', 'name', 'updatedAt'].sort(),
    );
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

  it('sign-up errors reach the client with Better Auth codes', async () => {
    const a = await signedUp('Joan');
    for (const email of [a.email, a.email.toUpperCase()]) {
      const taken = newClient();
      const { data, error } = await taken.client.signUp.email({ name: 'Joan Again', email, password: PASSWORD });
      expect(data).toBeNull();
      expect(error).toMatchObject({
        status: 422,
        code: 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL',
        message: 'User already exists. Use another email.',
      });
      expect(taken.jar.cookies.size).toBe(0);
    }

    const short = await newClient().client.signUp.email({
      name: 'Shorty',
      email: uniqueEmail('short'),
      password: 'short',
    });
    expect(short.data).toBeNull();
    expect(short.error).toMatchObject({ status: 400, code: 'PASSWORD_TOO_SHORT', message: 'Password too short' });

    const invalid = await newClient().client.signUp.email({ name: 'Bad', email: 'not-an-email', password: PASSWORD });
    expect(invalid.error).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: '[body.email] Invalid email address',
    });
  });
});
