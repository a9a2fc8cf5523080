import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, makeClient, sessionOf, useClientDaemon } from './client.js';

// Better Auth's own client (1.7.25, see client.ts) against /api/auth: requests without or with a foreign Origin, and
// a daemon with the session cookie cache on.

const { daemon, newClient, signedUp } = useClientDaemon();

describe('Better Auth client against Till', () => {
  it("without Origin, Node's fetch (sec-fetch-mode: cors) is refused with 403 MISSING_OR_NULL_ORIGIN", async () => {
    const bare = newClient(null);
    const up = await bare.client.signUp.email({
      name: 'No Origin',
      email: uniqueEmail('noorigin'),
      password: PASSWORD,
    });
    expect(up.data).toBeNull();
    expect(up.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });
    expect(bare.jar.cookies.size).toBe(0);

    const a = await signedUp('Origin Owner');
    const inBare = await bare.client.signIn.email({ email: a.email, password: PASSWORD });
    expect(inBare.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN' });

    // The same through plain Node fetch, which adds sec-fetch-mode: cors on its own.
    const response = await fetch(`${daemon().url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: a.email, password: PASSWORD }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' });

    // A request carrying the session cookie but no Origin is refused too; an untrusted Origin is INVALID_ORIGIN.
    const noOrigin = makeClient(daemon().url, { jar: a.jar, origin: null });
    const out = await noOrigin.client.signOut();
    expect(out.error).toMatchObject({ status: 403, code: 'MISSING_OR_NULL_ORIGIN' });
    const evil = makeClient(daemon().url, { jar: a.jar, origin: 'https://evil.example' });
    const evilOut = await evil.client.revokeSessions();
    expect(evilOut.error).toMatchObject({ status: 403, code: 'INVALID_ORIGIN', message: 'Invalid origin' });
    expect((await sessionOf(a))?.user.id).toBe(a.userId);
  });
});

describe('Better Auth client against Till with the session cookie cache on', () => {
  let cached: TestDaemon;
  beforeAll(async () => {
    cached = await startTestDaemon({
      session: {
        expiresIn: 7 * 24 * 3600,
        updateAge: 24 * 3600,
        freshAge: 24 * 3600,
        cookieCache: { enabled: true, maxAge: 300 },
      },
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
