import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { OAuthConfig } from '../../src/core/config/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
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

// TILL_OAUTH_ALLOW_DIFFERENT_EMAILS and TILL_OAUTH_ALLOW_UNLINKING_ALL (Better Auth's accountLinking
// allowDifferentEmails / allowUnlinkingAll), off on `strict` (the default) and on on `open`.

let idp: Idp;
let strict: TestDaemon;
let open: TestDaemon;

function oauthConfig(overrides: Partial<OAuthConfig> = {}): OAuthConfig {
  return {
    providers: [{ id: 'idp', issuer: idp.issuer, clientId: IDP_CLIENT_ID, clientSecret: IDP_CLIENT_SECRET }],
    trustedProviders: [],
    disableSignUp: false,
    disableImplicitSignUp: false,
    ...overrides,
  };
}

beforeAll(async () => {
  idp = await startIdp();
  // The IdP signs with the real time, so the daemons' clocks start there.
  strict = await startTestDaemon({ oauth: oauthConfig() }, { clock: new ManualClock(new Date()) });
  open = await startTestDaemon(
    { oauth: oauthConfig({ allowDifferentEmails: true, allowUnlinkingAll: true }) },
    { clock: new ManualClock(new Date()) },
  );
  await idp.configure([`${strict.url}/api/auth/callback/idp`, `${open.url}/api/auth/callback/idp`]);
});

afterAll(async () => {
  await strict?.stop();
  await open?.stop();
  await idp?.close();
});

const client = (target: TestDaemon) => new TestClient(target.url, { origin: target.url });

function account(overrides: Partial<IdpAccount> = {}): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('other'),
    email_verified: true,
    name: 'Other Address',
    ...overrides,
  };
}

/** link-social's redirect flow through the IdP; answers the daemon's final redirect. */
async function linkViaIdp(target: TestDaemon, c: TestClient, who: IdpAccount) {
  const start = await c.post('/api/auth/link-social', {
    provider: 'idp',
    callbackURL: '/settings',
    errorCallbackURL: '/link-error',
  });
  expect(start.status).toBe(200);
  idp.nextLogin = who;
  return c.get(await followUntil(start.json.url, `${target.url}/api/auth/callback/idp`));
}

async function linkWithIdToken(target: TestDaemon, c: TestClient, who: IdpAccount) {
  const token = await obtainIdToken(idp, who, 'n', `${target.url}/api/auth/callback/idp`);
  return c.post('/api/auth/link-social', { provider: 'idp', idToken: { token, nonce: 'n' } });
}

const providerIds = async (c: TestClient) =>
  ((await c.get('/api/auth/list-accounts')).json as Array<{ providerId: string }>).map((a) => a.providerId).sort();

describe('linking an identity with another address', () => {
  it('is refused by default', async () => {
    const c = client(strict);
    await signUpUser(c);
    expect((await linkViaIdp(strict, c, account())).headers.location).toBe('/link-error?error=email_does_not_match');
    const byToken = await linkWithIdToken(strict, c, account());
    expect(byToken.status).toBe(401);
    expect(byToken.json).toEqual({
      code: 'LINKING_DIFFERENT_EMAILS_NOT_ALLOWED',
      message: 'Account not linked - different emails not allowed',
    });
    // An address the provider does not vouch for is refused first, as Better Auth does.
    expect((await linkViaIdp(strict, c, account({ email_verified: false }))).headers.location).toBe(
      '/link-error?error=unable_to_link_account',
    );
    expect((await linkWithIdToken(strict, c, account({ email_verified: false }))).json.code).toBe(
      'LINKING_NOT_ALLOWED',
    );
    expect(await providerIds(c)).toEqual(['credential']);
  });

  it('is allowed with TILL_OAUTH_ALLOW_DIFFERENT_EMAILS, for a verified address only', async () => {
    const c = client(open);
    const { user } = await signUpUser(c);
    const who = account();
    const linked = await linkViaIdp(open, c, who);
    expect(linked.headers.location).toBe('/settings');
    const byToken = await linkWithIdToken(open, c, account({ sub: `${who.sub}-2` }));
    expect(byToken.json).toEqual({ url: '', status: true, redirect: false });
    expect((await linkViaIdp(open, c, account({ email_verified: false }))).headers.location).toBe(
      '/link-error?error=unable_to_link_account',
    );
    const accounts = (await c.get('/api/auth/list-accounts')).json as Array<{
      providerId: string;
      accountId: string;
      userId: string;
    }>;
    expect(
      accounts
        .filter((a) => a.providerId === 'idp')
        .map((a) => a.accountId)
        .sort(),
    ).toEqual([who.sub, `${who.sub}-2`]);
    expect(accounts.every((a) => a.userId === user.id)).toBe(true);
    // The user's own address is unchanged.
    expect((await c.get('/api/auth/get-session')).json.user.email).not.toBe(who.email);
  });
});

describe('unlinking the last account', () => {
  it('is refused by default', async () => {
    const c = client(strict);
    await signUpUser(c);
    const [credential] = (await c.get('/api/auth/list-accounts')).json as Array<{ id: string }>;
    const last = await c.post('/api/auth/unlink-account', { accountId: credential!.id });
    expect(last.status).toBe(400);
    expect(last.json.code).toBe('FAILED_TO_UNLINK_LAST_ACCOUNT');
  });

  it('is allowed with TILL_OAUTH_ALLOW_UNLINKING_ALL', async () => {
    const c = client(open);
    const { email } = await signUpUser(c);
    expect((await linkViaIdp(open, c, account({ email }))).headers.location).toBe('/settings');
    const accounts = (await c.get('/api/auth/list-accounts')).json as Array<{ id: string }>;
    expect(accounts).toHaveLength(2);
    for (const { id } of accounts)
      expect((await c.post('/api/auth/unlink-account', { accountId: id })).json).toEqual({ status: true });
    expect(await providerIds(c)).toEqual([]);
    expect((await c.post('/api/auth/unlink-account', { accountId: accounts[0]!.id })).json.code).toBe(
      'ACCOUNT_NOT_FOUND',
    );
  });
});
