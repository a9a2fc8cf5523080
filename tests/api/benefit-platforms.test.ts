import { Polar } from '@polar-sh/sdk';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_JOBS } from '../../src/core/grant-triggers/kinds.js';
import { HOUR } from '../../src/core/kernel/clock.js';
import { scheduledJobsRepository } from '../../src/core/scheduler/repository.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { startPlatforms, type Platforms } from '../helpers/platforms.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const GUILD = '111111111111111111';
const ROLE = '222222222222222222';
const KICK_ROLE = '333333333333333333';

let platforms: Platforms;
let daemon: TestDaemon;
beforeAll(async () => {
  platforms = await startPlatforms();
  daemon = await startTestDaemon({ benefitPlatforms: platforms.config });
});
afterAll(async () => {
  await daemon?.stop();
  await platforms?.close();
});

async function sessionFor(merchant: Merchant, customerId: string): Promise<string> {
  const created = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
  expect(created.status, created.text).toBe(201);
  return created.json.token as string;
}

/** The portal's "connect" button, the provider's consent page, and the callback, as the browser follows them. */
async function connect(platform: 'github' | 'discord', token: string): Promise<string> {
  const returnTo = `${daemon.url}/portal/shop?tab=benefits`;
  const start = await new TestClient(daemon.url).get('/v1/customer-portal/oauth-accounts/authorize', {
    query: { platform, customer_session_token: token, return_to: returnTo },
  });
  expect(start.status, start.text).toBe(302);
  const authorize = new URL(String(start.headers.location));
  expect(authorize.href.startsWith(`${platforms.url}/${platform}/`)).toBe(true);
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${daemon.url}/v1/customer-portal/oauth-accounts/callback`);
  const consent = await request(authorize.href);
  await consent.body.dump();
  expect(consent.statusCode).toBe(302);
  const callback = await new TestClient(daemon.url).get(String(consent.headers.location));
  expect(callback.status, callback.text).toBe(302);
  return String(callback.headers.location);
}

async function grantsOf(merchant: Merchant, customerId: string) {
  const listed = await merchant.api.get('/v1/benefit-grants/', { query: { customer_id: customerId } });
  expect(listed.status, listed.text).toBe(200);
  return listed.json.items as any[];
}

describe('github_repository and discord benefits', () => {
  it('wait for the customer to connect, then invite and add to the guild; revoking removes them', async () => {
    const merchant = await createMerchant(daemon);
    const repo = await merchant.api.post('/v1/benefits/', {
      type: 'github_repository',
      description: 'Source access',
      properties: { repository_owner: 'acme', repository_name: 'private-repo', permission: 'push' },
    });
    const role = await merchant.api.post('/v1/benefits/', {
      type: 'discord',
      description: 'Supporter role',
      properties: { guild_token: GUILD, role_id: ROLE, kick_member: false },
    });
    const kick = await merchant.api.post('/v1/benefits/', {
      type: 'discord',
      description: 'Members-only channel',
      properties: { guild_token: GUILD, role_id: KICK_ROLE, kick_member: true },
    });
    for (const created of [repo, role, kick]) expect(created.status, created.text).toBe(201);
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, {
      benefits: [repo.json.id, role.json.id, kick.json.id],
    });
    const bought = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();

    // No account yet: every grant says what to do, and nothing is retried.
    const waiting = await grantsOf(merchant, bought.customerId);
    expect(waiting).toHaveLength(3);
    for (const grant of waiting) {
      expect(grant).toMatchObject({ is_granted: false, is_revoked: false });
      expect(grant.error.type).toBe('BenefitActionRequiredError');
    }
    expect(waiting.find((g) => g.benefit_id === repo.json.id).error.message).toBe(
      'Connect your GitHub account to receive this benefit.',
    );
    expect(waiting.find((g) => g.benefit_id === role.json.id).error.message).toBe(
      'Connect your Discord account to receive this benefit.',
    );
    expect(await scheduledJobsRepository(daemon.core.db).forSubject(bought.order.id)).toEqual([]);
    expect(platforms.github.inviteCalls).toBe(0);
    expect(platforms.discord.joins).toEqual([]);

    const token = await sessionFor(merchant, bought.customerId);
    const discordBack = new URL(await connect('discord', token));
    expect(discordBack.pathname).toBe('/portal/shop');
    expect(Object.fromEntries(discordBack.searchParams)).toEqual({
      tab: 'benefits',
      platform: 'discord',
      connected: 'true',
    });
    await daemon.core.scheduler.drain();
    const user = platforms.discord.nextUser.id;
    expect(platforms.discord.members.get(GUILD)?.get(user)).toEqual(new Set([ROLE, KICK_ROLE]));
    const afterDiscord = await grantsOf(merchant, bought.customerId);
    expect(afterDiscord.find((g) => g.benefit_id === role.json.id)).toMatchObject({
      is_granted: true,
      error: null,
      properties: { account_id: user, granted_account_id: user, guild_id: GUILD, role_id: ROLE },
    });
    // The GitHub grant still waits for its own account.
    expect(afterDiscord.find((g) => g.benefit_id === repo.json.id).error.type).toBe('BenefitActionRequiredError');

    // GitHub has a bad minute: three failed invitations, retried with backoff as the clock moves, then granted.
    platforms.github.failNextInvites = 3;
    expect(new URL(await connect('github', token)).searchParams.get('connected')).toBe('true');
    await daemon.core.scheduler.drain();
    expect(platforms.github.inviteCalls).toBe(1);
    const [job] = await scheduledJobsRepository(daemon.core.db).forSubject(bought.order.id);
    expect(job).toMatchObject({ kind: GRANT_JOBS.syncOrder, attempts: 1 });
    expect(job!.lastError).toContain('GitHub collaborator invitation answered HTTP 502');
    expect((await grantsOf(merchant, bought.customerId)).find((g) => g.benefit_id === repo.json.id)).toMatchObject({
      is_granted: false,
      error: null,
    });
    for (let attempt = 2; attempt <= 4; attempt++) {
      daemon.clock.advance(HOUR);
      await daemon.core.scheduler.drain();
      expect(platforms.github.inviteCalls).toBe(attempt);
    }
    expect(platforms.github.invitations.get('acme/private-repo')).toEqual(new Map([['octo-buyer', 'push']]));
    const granted = await grantsOf(merchant, bought.customerId);
    expect(granted.every((grant) => grant.is_granted)).toBe(true);
    expect(granted.find((g) => g.benefit_id === repo.json.id).properties).toEqual({
      account_id: '1001',
      granted_account_id: '1001',
      repository_owner: 'acme',
      repository_name: 'private-repo',
      permission: 'push',
    });
    expect(await scheduledJobsRepository(daemon.core.db).forSubject(bought.order.id)).toEqual([]);
    // Each grant announced once.
    const created = await daemon.core.db('outbox_events').where({ type: 'benefit_grant.created' });
    const ids = created
      .map((row: any) => JSON.parse(row.payload).id)
      .filter((id: string) => granted.some((grant) => grant.id === id));
    expect(ids.sort()).toEqual(granted.map((grant) => grant.id).sort());

    // The portal shows the connected accounts (Polar's CustomerPortalCustomer.oauth_accounts, read by the SDK).
    // (A new portal session: the clock moved past the first one's hour.)
    const later = await sessionFor(merchant, bought.customerId);
    const me = await new Polar({ serverURL: daemon.url }).customerPortal.customers.get({ customerSession: later });
    expect(me.oauthAccounts).toEqual({
      discord: { accountId: user, accountUsername: 'nelly' },
      github: { accountId: '1001', accountUsername: 'octo-buyer' },
    });

    // The tokens are sealed at rest.
    const rows = await daemon.core.db('customer_oauth_accounts').where({ customer_id: bought.customerId });
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(String(row.access_token)).toMatch(/^v1\./);

    // The merchant raises the permission: the live grant is updated on GitHub (`benefit_grant.updated`).
    const raised = await merchant.api.call('PATCH', `/v1/benefits/${repo.json.id}`, {
      body: {
        type: 'github_repository',
        properties: { repository_owner: 'acme', repository_name: 'private-repo', permission: 'maintain' },
      },
    });
    expect(raised.status, raised.text).toBe(200);
    await daemon.core.scheduler.drain();
    expect(platforms.github.invitations.get('acme/private-repo')).toEqual(new Map([['octo-buyer', 'maintain']]));
    expect(
      (await grantsOf(merchant, bought.customerId)).find((g) => g.benefit_id === repo.json.id).properties.permission,
    ).toBe('maintain');

    const refund = await merchant.api.post('/v1/refunds/', {
      order_id: bought.order.id,
      amount: bought.order.net_amount,
      reason: 'customer_request',
      revoke_benefits: true,
    });
    expect(refund.status, refund.text).toBe(201);
    await daemon.core.scheduler.drain();
    expect(platforms.github.removed).toEqual([{ repo: 'acme/private-repo', login: 'octo-buyer' }]);
    // The invitation was never accepted: it is withdrawn too.
    expect(platforms.github.invitations.get('acme/private-repo')).toEqual(new Map());
    expect(platforms.discord.kicked).toEqual([{ guild: GUILD, user }]);
    expect(platforms.discord.members.get(GUILD)?.has(user)).toBe(false);
    for (const grant of await grantsOf(merchant, bought.customerId))
      expect(grant).toMatchObject({ is_granted: false, is_revoked: true });
  });

  it('removes only the role when the benefit does not kick', async () => {
    const merchant = await createMerchant(daemon);
    const role = await merchant.api.post('/v1/benefits/', {
      type: 'discord',
      description: 'Supporter role',
      properties: { guild_token: GUILD, role_id: ROLE, kick_member: false },
    });
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [role.json.id] });
    platforms.discord.nextUser = { id: '90351110224678913', username: 'other' };
    const bought = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    await connect('discord', await sessionFor(merchant, bought.customerId));
    await daemon.core.scheduler.drain();
    expect(platforms.discord.members.get(GUILD)?.get('90351110224678913')).toEqual(new Set([ROLE]));

    // A week later the merchant moves the benefit to another role: the old role goes, the new one comes, and the
    // customer's Discord token, expired by now, is refreshed first.
    const firstToken = platforms.discord.joins.at(-1)!.accessToken;
    daemon.clock.advance(8 * 24 * HOUR);
    const moved = await merchant.api.call('PATCH', `/v1/benefits/${role.json.id}`, {
      body: { type: 'discord', properties: { guild_token: GUILD, role_id: KICK_ROLE, kick_member: false } },
    });
    expect(moved.status, moved.text).toBe(200);
    await daemon.core.scheduler.drain();
    expect(platforms.discord.members.get(GUILD)?.get('90351110224678913')).toEqual(new Set([KICK_ROLE]));
    const refreshed = platforms.discord.joins.at(-1)!;
    expect(refreshed.user).toBe('90351110224678913');
    expect(refreshed.accessToken).not.toBe(firstToken);
    const [stored] = await daemon.core.db('customer_oauth_accounts').where({ customer_id: bought.customerId });
    expect(new Date(stored.expires_at).getTime()).toBe(daemon.clock.now().getTime() + 604800 * 1000);

    const kickedBefore = platforms.discord.kicked.length;
    await merchant.api.post('/v1/refunds/', {
      order_id: bought.order.id,
      amount: bought.order.net_amount,
      reason: 'customer_request',
      revoke_benefits: true,
    });
    await daemon.core.scheduler.drain();
    expect(platforms.discord.members.get(GUILD)?.get('90351110224678913')).toEqual(new Set());
    expect(platforms.discord.members.get(GUILD)?.has('90351110224678913')).toBe(true);
    expect(platforms.discord.kicked).toHaveLength(kickedBefore);
  });

  it('refuses a connect without a session, to a foreign return_to, or with a forged state', async () => {
    const merchant = await createMerchant(daemon);
    const product = await createProduct(merchant);
    const bought = await purchase(daemon, merchant, product.id);
    const token = await sessionFor(merchant, bought.customerId);
    const client = new TestClient(daemon.url);
    const path = '/v1/customer-portal/oauth-accounts/authorize';
    const noSession = await client.get(path, { query: { platform: 'github', return_to: `${daemon.url}/portal/x` } });
    expect(noSession.status).toBe(401);
    const foreign = await client.get(path, {
      query: { platform: 'github', customer_session_token: token, return_to: 'https://evil.example/steal' },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.json.detail[0].loc).toEqual(['query', 'return_to']);
    const unknownPlatform = await client.get(path, {
      query: { platform: 'gitlab', customer_session_token: token, return_to: `${daemon.url}/portal/x` },
    });
    expect(unknownPlatform.status).toBe(422);
    const start = await client.get(path, {
      query: { platform: 'github', customer_session_token: token, return_to: `${daemon.url}/portal/x` },
    });
    const state = new URL(String(start.headers.location)).searchParams.get('state')!;
    // The provider sees the state: it names neither the customer nor the portal URL (which carries the session).
    expect(state).not.toContain(bought.customerId);
    expect(Buffer.from(state.replace(/\./g, ''), 'base64url').toString('latin1')).not.toContain('portal');
    const last = state.at(-2) === 'A' ? 'B' : 'A';
    const forged = await client.get('/v1/customer-portal/oauth-accounts/callback', {
      query: { state: `${state.slice(0, -2)}${last}${state.at(-1)}`, code: 'x' },
    });
    expect(forged.status).toBe(400);
    expect(forged.json).toEqual({ error: 'BadRequest', detail: 'The OAuth state is not valid.' });
    // Declined at the provider: back to the portal with the error, nothing stored.
    const declined = await client.get('/v1/customer-portal/oauth-accounts/callback', {
      query: { state, error: 'access_denied' },
    });
    expect(declined.status).toBe(302);
    expect(new URL(String(declined.headers.location)).searchParams.get('error')).toBe('access_denied');
    expect(await daemon.core.db('customer_oauth_accounts').where({ customer_id: bought.customerId })).toEqual([]);
  });
});
