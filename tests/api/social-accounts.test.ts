import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { TestClient, signUpUser, uniqueEmail } from '../helpers/http.js';
import { followUntil, obtainIdToken, startIdpDaemon, type Idp, type IdpAccount } from '../helpers/oidc-idp.js';

let idp: Idp;
let daemon: TestDaemon;

let stop: () => Promise<void>;
beforeAll(async () => {
  ({ idp, daemon, stop } = await startIdpDaemon());
});
afterAll(async () => {
  await stop?.();
});

/** A browser-like client: it sends the daemon's origin, as a page of the app would. */
const client = () => new TestClient(daemon.url, { origin: daemon.url });
const callbackPrefix = () => `${daemon.url}/api/auth/callback/idp`;

function account(overrides: Partial<IdpAccount> = {}): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('linked'),
    email_verified: true,
    name: 'Linked Person',
    ...overrides,
  };
}

/** Runs a redirect flow (sign-in or link) through the IdP and answers the daemon's final redirect. */
async function viaIdp(c: TestClient, path: string, body: Record<string, unknown>, who: IdpAccount) {
  const start = await c.post(path, { provider: 'idp', ...body });
  expect(start.status).toBe(200);
  idp.nextLogin = who;
  return c.get(await followUntil(start.json.url, callbackPrefix()));
}

async function socialUser(who = account()) {
  const c = client();
  const done = await viaIdp(c, '/api/auth/sign-in/social', { callbackURL: '/home' }, who);
  expect(done.status).toBe(302);
  const accounts = await c.get('/api/auth/list-accounts');
  return { c, who, accountRowId: accounts.json[0].id as string };
}

describe('link-social, list-accounts, unlink-account', () => {
  it('links a provider identity to the signed-in user through the redirect flow', async () => {
    const c = client();
    const { email, user } = await signUpUser(c);
    const who = account({ email });
    const done = await viaIdp(
      c,
      '/api/auth/link-social',
      { callbackURL: '/settings', errorCallbackURL: '/link-error' },
      who,
    );
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/settings');
    expect(done.setCookies.some((cookie) => cookie.includes('session_token'))).toBe(false);
    const accounts = await c.get('/api/auth/list-accounts');
    expect(accounts.status).toBe(200);
    expect(accounts.json).toHaveLength(2);
    expect(accounts.json.map((a: { providerId: string }) => a.providerId).sort()).toEqual(['credential', 'idp']);
    const linked = accounts.json.find((a: { providerId: string }) => a.providerId === 'idp');
    expect(linked).toEqual({
      id: expect.any(String),
      providerId: 'idp',
      accountId: who.sub,
      userId: user.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      scopes: expect.arrayContaining(['openid', 'email']),
    });
    expect(linked.accessToken).toBeUndefined();
  });

  it('refuses an identity already linked to another user, and one with another address', async () => {
    const taken = await socialUser();
    const c = client();
    await signUpUser(c);
    const urls = { callbackURL: '/settings', errorCallbackURL: '/link-error' };
    expect((await viaIdp(c, '/api/auth/link-social', urls, taken.who)).headers.location).toBe(
      '/link-error?error=account_already_linked_to_different_user',
    );
    expect((await viaIdp(c, '/api/auth/link-social', urls, account())).headers.location).toBe(
      '/link-error?error=email_does_not_match',
    );
  });

  it('links with an ID token, and refuses one whose identity belongs to someone else', async () => {
    const c = client();
    const { email } = await signUpUser(c);
    const token = await obtainIdToken(idp, account({ email }), 'n', callbackPrefix());
    const linked = await c.post('/api/auth/link-social', { provider: 'idp', idToken: { token, nonce: 'n' } });
    expect(linked.json).toEqual({ url: '', status: true, redirect: false });
    expect((await c.get('/api/auth/list-accounts')).json).toHaveLength(2);
    const other = client();
    await signUpUser(other);
    const conflict = await other.post('/api/auth/link-social', { provider: 'idp', idToken: { token, nonce: 'n' } });
    expect(conflict.status).toBe(409);
    expect(conflict.json.code).toBe('SOCIAL_ACCOUNT_ALREADY_LINKED');
  });

  it('unlinks by account id but never the last account', async () => {
    const c = client();
    const { email } = await signUpUser(c);
    await viaIdp(c, '/api/auth/link-social', { callbackURL: '/settings' }, account({ email }));
    const accounts = (await c.get('/api/auth/list-accounts')).json as Array<{ id: string; providerId: string }>;
    const social = accounts.find((a) => a.providerId === 'idp')!;
    const credential = accounts.find((a) => a.providerId === 'credential')!;
    expect((await c.post('/api/auth/unlink-account', { accountId: 'nope' })).json.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await c.post('/api/auth/unlink-account', { accountId: social.id })).json).toEqual({ status: true });
    const last = await c.post('/api/auth/unlink-account', { accountId: credential.id });
    expect(last.status).toBe(400);
    expect(last.json).toEqual({ code: 'FAILED_TO_UNLINK_LAST_ACCOUNT', message: "You can't unlink your last account" });
    expect((await c.get('/api/auth/list-accounts')).json).toHaveLength(1);
  });

  it('requires a session', async () => {
    expect((await client().get('/api/auth/list-accounts')).status).toBe(401);
    expect((await client().post('/api/auth/link-social', { provider: 'idp' })).json.code).toBe('UNAUTHORIZED');
  });
});

describe('get-access-token, refresh-token, account-info', () => {
  it('hands out the stored access token and refuses credential accounts', async () => {
    const { c, accountRowId } = await socialUser();
    const token = await c.post('/api/auth/get-access-token', { accountId: accountRowId });
    expect(token.status).toBe(200);
    expect(token.json).toEqual({
      accessToken: expect.any(String),
      accessTokenExpiresAt: expect.any(String),
      scopes: expect.arrayContaining(['openid']),
      idToken: expect.any(String),
    });
    const password = client();
    await signUpUser(password);
    const credentialId = (await password.get('/api/auth/list-accounts')).json[0].id;
    expect((await password.post('/api/auth/get-access-token', { accountId: credentialId })).json.code).toBe(
      'PROVIDER_NOT_SUPPORTED',
    );
    expect((await c.post('/api/auth/get-access-token', { providerId: 'idp' })).json).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('[body]'),
    });
    const anonymous = await client().post('/api/auth/get-access-token', { accountId: accountRowId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe('');
  });

  it('reads the provider profile (account-info)', async () => {
    const { c, who, accountRowId } = await socialUser();
    const info = await c.get(`/api/auth/account-info?accountId=${accountRowId}`);
    expect(info.status).toBe(200);
    expect(info.json).toEqual({
      user: { id: who.sub, name: who.name, email: who.email, image: null, emailVerified: true },
      data: expect.objectContaining({ sub: who.sub, email: who.email }),
      account: { id: accountRowId, providerId: 'idp', accountId: who.sub },
    });
    expect((await client().get(`/api/auth/account-info?accountId=${accountRowId}`)).status).toBe(401);
  });

  it('refreshes at the token endpoint on request (refresh-token)', async () => {
    const { c, who, accountRowId } = await socialUser();
    const before = (await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json;
    const refreshed = await c.post('/api/auth/refresh-token', { accountId: accountRowId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      providerId: 'idp',
      accountId: who.sub,
    });
    expect(refreshed.json.accessToken).not.toBe(before.accessToken);
    expect((await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json.accessToken).toBe(
      refreshed.json.accessToken,
    );
  });

  it('without a refresh token: refresh-token says REFRESH_TOKEN_NOT_FOUND; without any token: ACCESS_TOKEN_NOT_FOUND', async () => {
    // An ID-token sign-in stores what the client holds: here an access token but no refresh token.
    const c = client();
    const who = account();
    const idToken = await obtainIdToken(idp, who, 'n', callbackPrefix());
    expect(
      (
        await c.post('/api/auth/sign-in/social', {
          provider: 'idp',
          idToken: { token: idToken, nonce: 'n', accessToken: 'client-held' },
        })
      ).status,
    ).toBe(200);
    const accountRowId = (await c.get('/api/auth/list-accounts')).json[0].id as string;
    expect((await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json).toEqual({
      accessToken: 'client-held',
      scopes: [],
      idToken,
    });
    const refresh = await c.post('/api/auth/refresh-token', { accountId: accountRowId });
    expect(refresh.status).toBe(400);
    expect(refresh.json).toEqual({ code: 'REFRESH_TOKEN_NOT_FOUND', message: 'Refresh token not found' });
    // The provider's userinfo endpoint refuses an access token it never issued.
    const refused = await c.get(`/api/auth/account-info?accountId=${accountRowId}`);
    expect(refused.status).toBe(401);
    expect(refused.json.code).toBe('FAILED_TO_GET_USER_INFO');

    // An account row with no provider tokens at all (say, imported).
    await daemon.core.db('accounts').where({ id: accountRowId }).update({ access_token: null, id_token: null });
    const info = await c.get(`/api/auth/account-info?accountId=${accountRowId}`);
    expect(info.status).toBe(400);
    expect(info.json).toEqual({ code: 'ACCESS_TOKEN_NOT_FOUND', message: 'Access token not found' });
    const token = await c.post('/api/auth/get-access-token', { accountId: accountRowId });
    expect(token.status).toBe(400);
    expect(token.json).toEqual({ code: 'FAILED_TO_GET_ACCESS_TOKEN', message: 'Failed to get a valid access token' });
  });

  it('answers FAILED_TO_REFRESH_ACCESS_TOKEN when the provider refuses the refresh token, and keeps the stored tokens', async () => {
    const { c, accountRowId } = await socialUser();
    const first = await c.post('/api/auth/refresh-token', { accountId: accountRowId });
    expect(first.status).toBe(200);
    const stored = await idp.provider.RefreshToken.find(first.json.refreshToken);
    expect(stored).toBeDefined();
    await stored!.destroy();
    const refused = await c.post('/api/auth/refresh-token', { accountId: accountRowId });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: 'FAILED_TO_REFRESH_ACCESS_TOKEN', message: 'Failed to refresh access token' });
    expect((await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json.accessToken).toBe(
      first.json.accessToken,
    );
  });

  it('account-info refuses credential accounts (PROVIDER_NOT_CONFIGURED) and unknown ones', async () => {
    const c = client();
    await signUpUser(c);
    const credentialId = (await c.get('/api/auth/list-accounts')).json[0].id;
    const info = await c.get(`/api/auth/account-info?accountId=${credentialId}`);
    expect(info.status).toBe(400);
    expect(info.json).toEqual({
      code: 'PROVIDER_NOT_CONFIGURED',
      message: 'Account is not associated with a configured social provider.',
    });
    expect((await c.get('/api/auth/account-info?accountId=nope')).json.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await c.post('/api/auth/refresh-token', { accountId: credentialId })).json.code).toBe(
      'PROVIDER_NOT_SUPPORTED',
    );
  });

  // Moves the daemon's clock, so it runs last.
  it('refreshes by itself when under 5 s remain, and unlinking then needs a fresh session', async () => {
    const { c, accountRowId } = await socialUser();
    const first = (await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json;
    const remaining = new Date(first.accessTokenExpiresAt).getTime() - daemon.clock.now().getTime();
    daemon.clock.advance(remaining - 5_001);
    expect((await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json.accessToken).toBe(
      first.accessToken,
    );
    daemon.clock.advance(2);
    const second = (await c.post('/api/auth/get-access-token', { accountId: accountRowId })).json;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(new Date(second.accessTokenExpiresAt).getTime()).toBeGreaterThan(daemon.clock.now().getTime() + 60_000);
    daemon.clock.advance(24 * 3600 * 1000);
    const stale = await c.post('/api/auth/unlink-account', { accountId: accountRowId });
    expect(stale.status).toBe(403);
    expect(stale.json.code).toBe('SESSION_NOT_FRESH');
  });
});
