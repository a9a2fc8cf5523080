import { Organization$inboundSchema } from '@polar-sh/sdk/models/components/organization.js';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/core/database/index.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

const FULL_UPDATE = {
  name: 'Acme Tools',
  avatar_url: 'https://cdn.example.com/acme.png',
  email: 'support@acme.example',
  website: 'https://acme.example',
  socials: [
    { platform: 'github', url: 'https://github.com/acme' },
    { platform: 'discord', url: 'https://discord.gg/acme' },
  ],
  details: { product_description: 'Developer tools', selling_categories: ['software'], switching: false },
  country: 'FR',
  feature_settings: { issue_funding_enabled: true, usage_based_billing_enabled: true },
  subscription_settings: {
    allow_multiple_subscriptions: true,
    allow_customer_updates: false,
    proration_behavior: 'invoice',
  },
  notification_settings: { new_order: false },
  customer_email_settings: { subscription_cycled: false },
  customer_portal_settings: { usage: { show: false } },
  default_presentment_currency: 'eur',
  default_tax_behavior: 'inclusive',
};

async function outboxEvents(organizationId: string) {
  const rows = await daemon()
    .core.db('outbox_events')
    .where({ organization_id: organizationId, type: 'organization.updated' })
    .orderBy('id');
  return rows.map((row: Record<string, unknown>) => parseJson<Record<string, any>>(row.payload)!);
}

describe('GET /v1/organizations', () => {
  it('reads the token’s organization with every field the SDK requires, Polar’s defaults filled in', async () => {
    const { api, organization } = await createMerchant(daemon());
    const got = await api.get(`/v1/organizations/${organization.id}`);
    expect(got.status).toBe(200);
    expect(() => Organization$inboundSchema.parse(got.json)).not.toThrow();
    expect(got.json).toMatchObject({
      id: organization.id,
      slug: organization.slug,
      name: 'Merchant',
      status: 'active',
      avatar_url: null,
      email: null,
      socials: [],
      modified_at: null,
      details_submitted_at: null,
      default_presentment_currency: 'usd',
      default_tax_behavior: 'location',
      proration_behavior: 'prorate',
      allow_customer_updates: true,
      account_id: null,
      payout_account_id: null,
      feature_settings: { issue_funding_enabled: false, usage_based_billing_enabled: false },
      subscription_settings: {
        allow_multiple_subscriptions: false,
        proration_behavior: 'prorate',
        allow_customer_updates: true,
      },
      capabilities: { checkout_payments: true, api_access: true },
    });
    expect(got.json.created_at).toMatch(/(Z|[+-]\d\d:\d\d)$/);
  });

  it('lists only what the caller may read, filtered by slug, paginated and sorted', async () => {
    const a = await createMerchant(daemon(), { name: 'Zeta' });
    await createMerchant(daemon());
    const tokenList = await a.api.get('/v1/organizations/');
    expect(tokenList.json.items.map((org: { id: string }) => org.id)).toEqual([a.organization.id]);
    expect(tokenList.json.pagination).toEqual({ total_count: 1, max_page: 1 });

    // A member of two organizations sees both through a session.
    const second = await a.session.post('/v1/organizations/', { name: 'Alpha', slug: `alpha-${a.organization.slug}` });
    expect(second.status).toBe(201);
    const byName = await a.session.get('/v1/organizations/', { query: { sorting: 'name', limit: '1' } });
    expect(byName.json.items.map((org: { name: string }) => org.name)).toEqual(['Alpha']);
    expect(byName.json.pagination).toEqual({ total_count: 2, max_page: 2 });
    const bySlug = await a.session.get('/v1/organizations/', { query: { slug: a.organization.slug } });
    expect(bySlug.json.items.map((org: { id: string }) => org.id)).toEqual([a.organization.id]);
    expect((await a.session.get('/v1/organizations/', { query: { sorting: 'revenue' } })).json.detail[0].loc).toEqual([
      'query',
      'sorting',
    ]);
  });

  it('hides another organization behind a 404', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const got = await a.api.get(`/v1/organizations/${b.organization.id}`);
    expect(got.status).toBe(404);
    expect(got.json).toEqual({ error: 'ResourceNotFound', detail: expect.any(String) });
  });
});

describe('PATCH /v1/organizations/{id}', () => {
  it('stores every setting, records organization.updated with the wire payload, and Better Auth sees the name', async () => {
    const { api, organization, owner } = await createMerchant(daemon());
    const updated = await api.call('PATCH', `/v1/organizations/${organization.id}`, { body: FULL_UPDATE });
    expect(updated.status, updated.text).toBe(200);
    expect(() => Organization$inboundSchema.parse(updated.json)).not.toThrow();
    expect(updated.json).toMatchObject({
      name: 'Acme Tools',
      avatar_url: FULL_UPDATE.avatar_url,
      email: FULL_UPDATE.email,
      website: FULL_UPDATE.website,
      socials: FULL_UPDATE.socials,
      country: 'FR',
      details_submitted_at: daemon().clock.now().toISOString(),
      modified_at: daemon().clock.now().toISOString(),
      proration_behavior: 'invoice',
      allow_customer_updates: false,
      feature_settings: { issue_funding_enabled: true, usage_based_billing_enabled: true, wallets_enabled: false },
      subscription_settings: {
        allow_multiple_subscriptions: true,
        proration_behavior: 'invoice',
        benefit_revocation_grace_period: 0,
      },
      notification_settings: { new_order: false, new_subscription: true },
      customer_email_settings: { subscription_cycled: false, order_confirmation: true },
      customer_portal_settings: { usage: { show: false }, subscription: { update_plan: true } },
      default_presentment_currency: 'eur',
      default_tax_behavior: 'inclusive',
    });
    expect(updated.json).not.toHaveProperty('details');
    expect(await api.get(`/v1/organizations/${organization.id}`).then((r) => r.json)).toEqual(updated.json);

    const events = await outboxEvents(organization.id);
    expect(events).toEqual([updated.json]);

    // Settings merge key by key; null clears the nullable fields.
    const second = await api.call('PATCH', `/v1/organizations/${organization.id}`, {
      body: {
        email: null,
        socials: null,
        feature_settings: { wallets_enabled: true },
        subscription_settings: { prevent_trial_abuse: true },
      },
    });
    expect(second.json).toMatchObject({
      email: null,
      socials: [],
      website: FULL_UPDATE.website,
      feature_settings: { issue_funding_enabled: true, wallets_enabled: true },
      subscription_settings: {
        allow_multiple_subscriptions: true,
        prevent_trial_abuse: true,
        proration_behavior: 'invoice',
      },
    });
    expect(await outboxEvents(organization.id)).toHaveLength(2);

    const full = await owner.client.get('/api/auth/organization/get-full-organization', {
      query: { organizationId: organization.id },
    });
    expect(full.json).toMatchObject({ id: organization.id, name: 'Acme Tools', logo: FULL_UPDATE.avatar_url });
  });

  it.each([
    [
      'unknown platform',
      { socials: [{ platform: 'myspace', url: 'https://myspace.com/acme' }] },
      ['body', 'socials', 0, 'platform'],
    ],
    ['bad social URL', { socials: [{ platform: 'x', url: 'not a url' }] }, ['body', 'socials', 0, 'url']],
    ['javascript: avatar', { avatar_url: 'javascript:alert(1)' }, ['body', 'avatar_url']],
    ['bad website', { website: 'acme dot com' }, ['body', 'website']],
    ['bad email', { email: 'not-an-email' }, ['body', 'email']],
    [
      'unknown proration_behavior',
      { subscription_settings: { proration_behavior: 'reset' } },
      ['body', 'subscription_settings', 'proration_behavior'],
    ],
    ['over-long name', { name: 'x'.repeat(256) }, ['body', 'name']],
    ['too short name', { name: 'ab' }, ['body', 'name']],
    ['name of the wrong type', { name: 42 }, ['body', 'name']],
    [
      'flag of the wrong type',
      { feature_settings: { issue_funding_enabled: 'yes' } },
      ['body', 'feature_settings', 'issue_funding_enabled'],
    ],
    [
      'unknown feature flag',
      { feature_settings: { teleport_enabled: true } },
      ['body', 'feature_settings', 'teleport_enabled'],
    ],
    ['socials not a list', { socials: 'github' }, ['body', 'socials']],
    [
      'negative grace period',
      { subscription_settings: { benefit_revocation_grace_period: -1 } },
      ['body', 'subscription_settings', 'benefit_revocation_grace_period'],
    ],
    ['unknown country', { country: 'XX' }, ['body', 'country']],
    ['unknown currency', { default_presentment_currency: 'usdx' }, ['body', 'default_presentment_currency']],
    ['unknown tax behavior', { default_tax_behavior: 'none' }, ['body', 'default_tax_behavior']],
    ['unknown field', { slug: 'renamed' }, ['body', 'slug']],
    [
      'notification flag of the wrong type',
      { notification_settings: { new_order: 1 } },
      ['body', 'notification_settings', 'new_order'],
    ],
    [
      'portal flag of the wrong type',
      { customer_portal_settings: { usage: { show: 'no' } } },
      ['body', 'customer_portal_settings', 'usage', 'show'],
    ],
    [
      'negative revenue in details',
      { details: { future_annual_revenue: -5 } },
      ['body', 'details', 'future_annual_revenue'],
    ],
    ['dispute auto-accept', { dispute_settings: { auto_accept_below_amount: 500 } }, ['body', 'dispute_settings']],
    ['embed hosts', { embed_hosts: ['example.com'] }, ['body', 'embed_hosts']],
    ['sso enforcement', { sso_enforced: true }, ['body', 'sso_enforced']],
  ])('refuses %s with a 422 at its loc and changes nothing', async (_label, body, loc) => {
    const { api, organization } = await createMerchant(daemon());
    const refused = await api.call('PATCH', `/v1/organizations/${organization.id}`, { body });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) }),
    ]);
    const after = await api.get(`/v1/organizations/${organization.id}`);
    expect(after.json.modified_at).toBeNull();
    expect(await outboxEvents(organization.id)).toEqual([]);
  });

  it('accepts the "off" values of what Till does not implement', async () => {
    const { api, organization } = await createMerchant(daemon());
    const ok = await api.call('PATCH', `/v1/organizations/${organization.id}`, {
      body: { dispute_settings: { auto_accept_below_amount: null }, embed_hosts: [], sso_enforced: false },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers 404 for another organization’s id and changes nothing there', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const refused = await a.api.call('PATCH', `/v1/organizations/${b.organization.id}`, { body: { name: 'Hijacked' } });
    expect(refused.status).toBe(404);
    expect(refused.json.error).toBe('ResourceNotFound');
    expect((await b.api.get(`/v1/organizations/${b.organization.id}`)).json).toMatchObject({
      name: 'Merchant',
      modified_at: null,
    });
    expect(await outboxEvents(b.organization.id)).toEqual([]);
  });

  it('lets members read but not write (403), admins write', async () => {
    const merchant = await createMerchant(daemon());
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/organizations/${merchant.organization.id}`)).status).toBe(200);
    const refused = await asMember.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
      body: { name: 'By member' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');

    const admin = await signedInUser(daemon(), 'Admin');
    await addMember(daemon(), merchant.organization.id, admin.user.id, 'admin');
    const byAdmin = await bearerClient(daemon(), admin.token).call(
      'PATCH',
      `/v1/organizations/${merchant.organization.id}`,
      { body: { name: 'By admin' } },
    );
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json.name).toBe('By admin');
  });

  it('needs organizations:write on a token; organizations:read reads', async () => {
    const merchant = await createMerchant(daemon(), { scopes: ['organizations:read'] });
    expect((await merchant.api.get(`/v1/organizations/${merchant.organization.id}`)).status).toBe(200);
    const refused = await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
      body: { name: 'Nope' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
    const none = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await none.api.get('/v1/organizations/')).status).toBe(403);
  });
});

describe('/v1/openapi.json', () => {
  it('documents the organization operations with Polar’s schema names', async () => {
    const { api } = await createMerchant(daemon());
    const document = (await api.get('/v1/openapi.json')).json;
    expect(document.paths['/v1/organizations/'].get.operationId).toBe('organizations:list');
    expect(document.paths['/v1/organizations/'].post.operationId).toBe('organizations:create');
    expect(document.paths['/v1/organizations/{id}'].patch.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/OrganizationUpdate',
    );
    expect(document.components.schemas.Organization.required).toEqual(
      expect.arrayContaining(['notification_settings', 'capabilities', 'account_id', 'details_submitted_at']),
    );
  });
});

describe('POST /v1/organizations', () => {
  it('creates an organization owned by the calling user, with the settings sent along', async () => {
    const merchant = await createMerchant(daemon());
    const slug = `new-${merchant.organization.slug}`;
    const created = await merchant.session.post('/v1/organizations/', {
      name: 'New Shop',
      slug,
      email: 'shop@example.com',
      subscription_settings: { proration_behavior: 'invoice' },
    });
    expect(created.status, created.text).toBe(201);
    expect(() => Organization$inboundSchema.parse(created.json)).not.toThrow();
    expect(created.json).toMatchObject({
      name: 'New Shop',
      slug,
      email: 'shop@example.com',
      proration_behavior: 'invoice',
      modified_at: null,
    });
    const listed = await merchant.owner.client.get('/api/auth/organization/list');
    expect(listed.json.map((org: { id: string }) => org.id)).toContain(created.json.id);
    const role = await merchant.owner.client.get('/api/auth/organization/get-active-member-role', {
      query: { organizationId: created.json.id },
    });
    expect(role.json.role).toBe('owner');

    const taken = await merchant.session.post('/v1/organizations/', { name: 'Copy', slug });
    expect(taken.status).toBe(422);
    expect(taken.json.detail[0].loc).toEqual(['body', 'slug']);
    const badSlug = await merchant.session.post('/v1/organizations/', { name: 'Shouty', slug: 'NOT OK' });
    expect(badSlug.json.detail[0].loc).toEqual(['body', 'slug']);
  });

  it('refuses organization access tokens with a 403', async () => {
    const merchant = await createMerchant(daemon());
    const refused = await merchant.api.post('/v1/organizations/', {
      name: 'Side Shop',
      slug: `side-${merchant.organization.slug}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
  });
});
