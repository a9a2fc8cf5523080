import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { OAuthConfig } from '../../src/core/config/index.js';
import { startTestDaemon, TEST_SECRET, type TestDaemon } from '../helpers/daemon.js';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import {
  followUntil,
  IDP_CLIENT_ID,
  IDP_CLIENT_SECRET,
  obtainIdToken,
  startIdp,
  type Idp,
  type IdpAccount,
} from '../helpers/oidc-idp.js';

let idp: Idp;
let daemon: TestDaemon;
let closed: TestDaemon;

function oauthConfig(overrides: Partial<OAuthConfig> = {}): OAuthConfig {
  return {
    providers: [
      { id: 'idp', issuer: idp.issuer, clientId: IDP_CLIENT_ID, clientSecret: IDP_CLIENT_SECRET },
      // Explicit endpoints and no JWKS: a provider that cannot verify ID tokens.
      {
        id: 'plain',
        clientId: 'x',
        clientSecret: 'y',
        authorizationEndpoint: `${idp.issuer}/auth`,
        tokenEndpoint: `${idp.issuer}/token`,
      },
    ],
    trustedProviders: [],
    disableSignUp: false,
    disableImplicitSignUp: false,
    ...overrides,
  };
}

beforeAll(async () => {
  idp = await startIdp();
  // The IdP signs with the real time, so the daemon's clock starts there.
  daemon = await startTestDaemon({ oauth: oauthConfig() }, { clock: new ManualClock(new Date()) });
  closed = await startTestDaemon(
    { oauth: oauthConfig({ disableSignUp: true }) },
    { clock: new ManualClock(new Date()) },
  );
  await idp.configure([`${daemon.url}/api/auth/callback/idp`, `${closed.url}/api/auth/callback/idp`]);
});

afterAll(async () => {
  await daemon?.stop();
  await closed?.stop();
  await idp?.close();
});

const client = (target = daemon) => new TestClient(target.url);

/** A cookie value signed as the daemon signs its cookies (the test knows the secret). */
const signedCookie = (value: string) =>
  encodeURIComponent(`${value}.${createHmac('sha256', TEST_SECRET).update(value).digest('base64')}`);

function account(overrides: Partial<IdpAccount> = {}): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('social'),
    email_verified: true,
    name: 'Social Person',
    ...overrides,
  };
}

const URLS = { callbackURL: '/dashboard', newUserCallbackURL: '/welcome', errorCallbackURL: '/oops' };

/** Starts the flow on the daemon and lets the IdP sign `who` in; returns the provider's redirect to the daemon. */
async function throughIdp(c: TestClient, who: IdpAccount, target = daemon, body: Record<string, unknown> = URLS) {
  const start = await c.post('/api/auth/sign-in/social', { provider: 'idp', ...body });
  expect(start.status).toBe(200);
  idp.nextLogin = who;
  const callbackUrl = await followUntil(start.json.url, `${target.url}/api/auth/callback/idp`);
  return { start, callbackUrl, state: new URL(start.json.url).searchParams.get('state')! };
}

async function signInThroughIdp(c: TestClient, who: IdpAccount, target = daemon) {
  const { callbackUrl } = await throughIdp(c, who, target);
  return c.get(callbackUrl);
}

describe('POST /api/auth/sign-in/social (redirect flow)', () => {
  it('answers the authorization URL with PKCE S256 and a 32-character state, bound by a signed state cookie', async () => {
    const c = client();
    const response = await c.post('/api/auth/sign-in/social', { provider: 'idp', callbackURL: '/dashboard' });
    expect(response.status).toBe(200);
    expect(response.json.redirect).toBe(true);
    expect(response.headers.location).toBe(response.json.url);
    const url = new URL(response.json.url);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(`${daemon.url}/api/auth/callback/idp`);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    const state = url.searchParams.get('state')!;
    expect(state).toMatch(/^[A-Za-z0-9]{32}$/);
    const cookie = response.setCookies.find((value) => value.startsWith('better-auth.state='))!;
    expect(cookie).toMatch(/Max-Age=300; Path=\/; HttpOnly; SameSite=Lax/);
    // Only the state's digest names the row: the table alone never tells a flow in progress.
    expect(await daemon.core.db('verifications').where('identifier', 'like', `%${state}%`).first()).toBeUndefined();
    const row = await daemon.core
      .db('verifications')
      .where({ identifier: `auth-state:${createHash('sha256').update(state).digest('hex')}` })
      .first();
    expect(row.value).not.toContain(state);
    const stored = JSON.parse(row.value);
    expect(stored.codeVerifier).toMatch(/^v1\./);
    expect(new Date(row.expires_at).getTime() - daemon.clock.now().getTime()).toBe(10 * 60 * 1000);
  });

  it('with disableRedirect answers redirect:false and no Location', async () => {
    const response = await client().post('/api/auth/sign-in/social', { provider: 'idp', disableRedirect: true });
    expect(response.json.redirect).toBe(false);
    expect(response.headers.location).toBeUndefined();
  });

  it('refuses unknown providers and untrusted callback URLs', async () => {
    expect((await client().post('/api/auth/sign-in/social', { provider: 'nope' })).json).toEqual({
      code: 'PROVIDER_NOT_FOUND',
      message: 'Provider not found',
    });
    expect((await client().post('/api/auth/sign-in/social', { provider: 'github' })).status).toBe(404);
    const bad = await client().post('/api/auth/sign-in/social', {
      provider: 'idp',
      callbackURL: 'https://evil.example/',
    });
    expect(bad.status).toBe(403);
    expect(bad.json.code).toBe('INVALID_CALLBACK_URL');
  });
});

describe('GET /api/auth/callback/:id', () => {
  it('creates the user and the account, signs in, and sends a new user to newUserCallbackURL', async () => {
    const who = account({ picture: 'https://img.example/p.png' });
    const c = client();
    const done = await signInThroughIdp(c, who);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/welcome');
    expect(
      done.setCookies.some((cookie) => cookie.startsWith('better-auth.state=;') && cookie.includes('Max-Age=0')),
    ).toBe(true);
    const session = await c.get('/api/auth/get-session');
    expect(session.json.user).toMatchObject({
      email: who.email,
      name: 'Social Person',
      emailVerified: true,
      image: 'https://img.example/p.png',
    });
    const row = await daemon.core.db('accounts').where({ provider_id: 'idp', account_id: who.sub }).first();
    expect(row.user_id).toBe(session.json.user.id);
    expect(row.access_token).toMatch(/^v1\./);
    expect(row.id_token).toMatch(/^v1\./);
    expect(row.scope.split(',')).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
  });

  it('signs an existing user in again and sends them to callbackURL', async () => {
    const who = account();
    const first = await signInThroughIdp(client(), who);
    expect(first.headers.location).toBe('/welcome');
    const c = client();
    const again = await signInThroughIdp(c, who);
    expect(again.headers.location).toBe('/dashboard');
    expect((await c.get('/api/auth/get-session')).json.user.email).toBe(who.email);
    const rows = await daemon.core.db('accounts').where({ provider_id: 'idp', account_id: who.sub });
    expect(rows).toHaveLength(1);
  });

  it('links to an existing user with the same address when the provider verified it', async () => {
    const password = client();
    const { email, user } = await signUpUser(password.withOrigin(daemon.url));
    const c = client();
    const done = await signInThroughIdp(c, account({ email, email_verified: true }));
    expect(done.headers.location).toBe('/dashboard');
    const session = await c.get('/api/auth/get-session');
    expect(session.json.user.id).toBe(user.id);
    expect(session.json.user.emailVerified).toBe(true);
  });

  it('refuses to link an unverified address of an untrusted provider (account_not_linked)', async () => {
    const { email } = await signUpUser(client().withOrigin(daemon.url));
    const done = await signInThroughIdp(client(), account({ email, email_verified: false }));
    expect(done.headers.location).toBe('/oops?error=account_not_linked');
  });

  it('refuses sign-up when it is disabled (signup_disabled)', async () => {
    const done = await signInThroughIdp(client(closed), account(), closed);
    expect(done.headers.location).toBe('/oops?error=signup_disabled');
  });

  it('a state the daemon never issued asks to restart the process', async () => {
    const c = client();
    await c.post('/api/auth/sign-in/social', { provider: 'idp', ...URLS });
    const done = await c.get(`/api/auth/callback/idp?state=${'A'.repeat(32)}&code=whatever`);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`${daemon.url}/api/auth/error?error=please_restart_the_process`);
  });

  it('a state without the browser that started it is a mismatch, and stays usable', async () => {
    const c = client();
    const { callbackUrl } = await throughIdp(c, account());
    const stranger = await client().get(callbackUrl);
    expect(stranger.headers.location).toBe(`${daemon.url}/api/auth/error?error=state_mismatch`);
    expect((await c.get(callbackUrl)).headers.location).toBe('/welcome');
  });

  it('a replayed state asks to restart the process', async () => {
    const c = client();
    const { callbackUrl, state } = await throughIdp(c, account());
    expect((await c.get(callbackUrl)).headers.location).toBe('/welcome');
    // A browser still holding the state cookie (the daemon cleared it; this one kept a copy).
    c.cookies.set('better-auth.state', signedCookie(state));
    const replay = await c.get(callbackUrl);
    expect(replay.headers.location).toBe(`${daemon.url}/api/auth/error?error=please_restart_the_process`);
  });

  it('without a state answers state_not_found', async () => {
    const done = await client().get('/api/auth/callback/idp?code=x');
    expect(done.headers.location).toBe(`${daemon.url}/api/auth/error?error=state_not_found`);
  });

  it('without a code answers no_code at errorCallbackURL', async () => {
    const c = client();
    const start = await c.post('/api/auth/sign-in/social', { provider: 'idp', ...URLS });
    const state = new URL(start.json.url).searchParams.get('state')!;
    expect((await c.get(`/api/auth/callback/idp?state=${state}`)).headers.location).toBe('/oops?error=no_code');
  });

  it("passes the provider's own error on (access_denied)", async () => {
    const c = client();
    const start = await c.post('/api/auth/sign-in/social', { provider: 'idp', ...URLS });
    const state = new URL(start.json.url).searchParams.get('state')!;
    const done = await c.get(
      `/api/auth/callback/idp?state=${state}&error=access_denied&error_description=User%20said%20no`,
    );
    expect(done.headers.location).toBe('/oops?error=access_denied&error_description=User+said+no');
  });

  it('a code the provider does not accept is invalid_code; a callback for another provider is oauth_provider_not_found', async () => {
    const c = client();
    let start = await c.post('/api/auth/sign-in/social', { provider: 'idp', ...URLS });
    let state = new URL(start.json.url).searchParams.get('state')!;
    expect((await c.get(`/api/auth/callback/idp?state=${state}&code=bogus`)).headers.location).toBe(
      '/oops?error=invalid_code',
    );
    start = await c.post('/api/auth/sign-in/social', { provider: 'idp', ...URLS });
    state = new URL(start.json.url).searchParams.get('state')!;
    expect((await c.get(`/api/auth/callback/plain?state=${state}&code=x`)).headers.location).toBe(
      '/oops?error=oauth_provider_not_found',
    );
  });

  it('form_post callbacks become a GET with the posted fields', async () => {
    const response = await client().call('POST', '/api/auth/callback/idp?iss=x', {
      rawBody: 'code=abc&state=def',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: idp.issuer },
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`${daemon.url}/api/auth/callback/idp?iss=x&code=abc&state=def`);
  });

  it('a state older than 10 minutes asks to restart the process', async () => {
    const c = client();
    const { callbackUrl } = await throughIdp(c, account());
    daemon.clock.advance(10 * 60 * 1000 + 1);
    expect((await c.get(callbackUrl)).headers.location).toBe(
      `${daemon.url}/api/auth/error?error=please_restart_the_process`,
    );
  });
});

describe('POST /api/auth/sign-in/social with an ID token', () => {
  const idTokenFor = (who: IdpAccount, nonce: string) =>
    obtainIdToken(idp, who, nonce, `${daemon.url}/api/auth/callback/idp`);

  it('verifies the token against the JWKS and signs in', async () => {
    const who = account();
    const token = await idTokenFor(who, 'nonce-1');
    const c = client();
    const response = await c.post('/api/auth/sign-in/social', {
      provider: 'idp',
      idToken: { token, nonce: 'nonce-1', accessToken: 'at', expiresAt: Date.now() + 3600_000 },
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      redirect: false,
      token: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      user: { email: who.email, emailVerified: true },
    });
    expect((await c.get('/api/auth/get-session')).json.user.email).toBe(who.email);
    const row = await daemon.core.db('accounts').where({ provider_id: 'idp', account_id: who.sub }).first();
    expect(daemon.core.secretBox.open(row.access_token, `accounts.access_token:${row.id}`)).toBe('at');
  });

  it('refuses a wrong nonce, a tampered token and a provider without ID-token support', async () => {
    const token = await idTokenFor(account(), 'nonce-2');
    const wrongNonce = await client().post('/api/auth/sign-in/social', {
      provider: 'idp',
      idToken: { token, nonce: 'other' },
    });
    expect(wrongNonce.status).toBe(401);
    expect(wrongNonce.json.code).toBe('INVALID_TOKEN');
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
    expect(
      (await client().post('/api/auth/sign-in/social', { provider: 'idp', idToken: { token: tampered } })).json.code,
    ).toBe('INVALID_TOKEN');
    const plain = await client().post('/api/auth/sign-in/social', { provider: 'plain', idToken: { token } });
    expect(plain.status).toBe(404);
    expect(plain.json.code).toBe('ID_TOKEN_NOT_SUPPORTED');
  });
});
