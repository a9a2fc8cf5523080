import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { followUntil, startIdpDaemon, type Idp, type IdpAccount } from '../helpers/oidc-idp.js';
import { makeClient, PASSWORD, sessionOf, type Client } from './client.js';

// Better Auth's own client (1.7.25) through a social sign-in and account linking against a real OpenID provider:
// the client starts the flow, the test plays the browser at the provider, and the daemon's callback sees the
// client's cookie jar (with its state cookie), as it would see the same browser.

let idp: Idp;
let daemon: TestDaemon;

let stop: () => Promise<void>;
beforeAll(async () => {
  ({ idp, daemon, stop } = await startIdpDaemon());
});
afterAll(async () => {
  await stop?.();
});

function account(overrides: Partial<IdpAccount> = {}): IdpAccount {
  return {
    sub: `sub-${randomBytes(6).toString('hex')}`,
    email: uniqueEmail('client-social'),
    email_verified: true,
    name: 'Client Social',
    ...overrides,
  };
}

/** Plays the browser: the provider's redirects, then the daemon's callback with the client's cookies. Answers its Location. */
async function finishAtIdp(c: Client, authorizationUrl: string, who: IdpAccount): Promise<string | null> {
  expect(c.jar.cookies.has('better-auth.state')).toBe(true);
  idp.nextLogin = who;
  const callback = await followUntil(authorizationUrl, `${daemon.url}/api/auth/callback/idp`);
  const response = await fetch(callback, { headers: { cookie: c.jar.header() }, redirect: 'manual' });
  c.jar.absorb(response.headers);
  expect(response.status).toBe(302);
  return response.headers.get('location');
}

describe('Better Auth client: social sign-in and account linking', () => {
  it('signIn.social with disableRedirect answers the provider URL; the callback signs the client in', async () => {
    const c = makeClient(daemon.url);
    const who = account();
    const { data, error } = await c.client.signIn.social({
      provider: 'idp',
      callbackURL: '/dashboard',
      newUserCallbackURL: '/welcome',
      disableRedirect: true,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ url: expect.stringContaining(idp.issuer), redirect: false });
    expect(await finishAtIdp(c, (data as { url: string }).url, who)).toBe('/welcome');
    expect(c.jar.cookies.has('better-auth.state')).toBe(false);
    const session = await sessionOf(c);
    expect(session?.user).toMatchObject({ email: who.email, name: who.name, emailVerified: true });

    // The same identity again is a returning user: callbackURL, not newUserCallbackURL.
    const again = makeClient(daemon.url);
    const second = await again.client.signIn.social({
      provider: 'idp',
      callbackURL: '/dashboard',
      newUserCallbackURL: '/welcome',
      disableRedirect: true,
    });
    expect(await finishAtIdp(again, second.data!.url!, who)).toBe('/dashboard');
    expect((await sessionOf(again))?.user.id).toBe(session?.user.id);

    const { data: accounts, error: listError } = await c.client.listAccounts();
    expect(listError).toBeNull();
    expect(accounts).toEqual([
      expect.objectContaining({ providerId: 'idp', accountId: who.sub, userId: session?.user.id }),
    ]);
  });

  it('linkSocial links a provider identity, listAccounts shows it, unlinkAccount removes it', async () => {
    const c = makeClient(daemon.url);
    const email = uniqueEmail('client-link');
    const signedUp = await c.client.signUp.email({ name: 'Linker', email, password: PASSWORD });
    expect(signedUp.error).toBeNull();
    const who = account({ email });
    const { data, error } = await c.client.linkSocial({
      provider: 'idp',
      callbackURL: '/settings',
      disableRedirect: true,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ url: expect.stringContaining(idp.issuer), redirect: false });
    expect(await finishAtIdp(c, data!.url, who)).toBe('/settings');
    // Linking keeps the session it started from.
    expect((await sessionOf(c))?.user.id).toBe(signedUp.data!.user.id);

    const listed = await c.client.listAccounts();
    expect(listed.error).toBeNull();
    expect(listed.data!.map((a) => a.providerId).sort()).toEqual(['credential', 'idp']);
    const linked = listed.data!.find((a) => a.providerId === 'idp')!;
    expect(linked).toMatchObject({
      accountId: who.sub,
      userId: signedUp.data!.user.id,
      scopes: expect.arrayContaining(['openid', 'email']),
    });

    const unlinked = await c.client.unlinkAccount({ accountId: linked.id });
    expect(unlinked.error).toBeNull();
    expect(unlinked.data).toEqual({ status: true });
    expect((await c.client.listAccounts()).data!.map((a) => a.providerId)).toEqual(['credential']);

    const last = await c.client.unlinkAccount({
      accountId: listed.data!.find((a) => a.providerId === 'credential')!.id,
    });
    expect(last.data).toBeNull();
    expect(last.error).toMatchObject({ status: 400, code: 'FAILED_TO_UNLINK_LAST_ACCOUNT' });
  });

  it('linkSocial with an address of another person lands on the error callback', async () => {
    const c = makeClient(daemon.url);
    expect(
      (await c.client.signUp.email({ name: 'Other', email: uniqueEmail('client-other'), password: PASSWORD })).error,
    ).toBeNull();
    const { data } = await c.client.linkSocial({
      provider: 'idp',
      callbackURL: '/settings',
      errorCallbackURL: '/link-error',
      disableRedirect: true,
    });
    expect(await finishAtIdp(c, data!.url, account())).toBe('/link-error?error=email_does_not_match');
    expect((await c.client.listAccounts()).data).toHaveLength(1);
  });
});
