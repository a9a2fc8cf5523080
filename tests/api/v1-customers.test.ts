import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function createCustomer(merchant: Merchant, body: Record<string, unknown> = {}) {
  const response = await merchant.api.post('/v1/customers/', { email: uniqueEmail('buyer'), ...body });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

async function outbox(organizationId: string) {
  const rows = await daemon().core.db('outbox_events').where({ organization_id: organizationId }).orderBy('id');
  return rows.map((row) => ({ type: row.type as string, data: JSON.parse(row.payload as string) }));
}

describe('/v1/customers', () => {
  it('creates a customer with every field the SDK requires, lower-casing the e-mail address', async () => {
    const merchant = await createMerchant(daemon());
    const created = await createCustomer(merchant, {
      email: 'Ada.Lovelace@Example.COM',
      name: 'Ada',
      external_id: 'usr_1',
      billing_address: { line1: '1 Main St', city: 'Albany', state: 'ny', postal_code: '12207', country: 'us' },
      tax_id: '91-1144442',
      metadata: { plan: 'gold', seats: 3, beta: true },
    });
    expect(created).toMatchObject({
      email: 'ada.lovelace@example.com',
      email_verified: false,
      type: 'individual',
      name: 'Ada',
      billing_name: 'Ada',
      external_id: 'usr_1',
      organization_id: merchant.organization.id,
      billing_address: {
        line1: '1 Main St',
        line2: null,
        city: 'Albany',
        state: 'US-NY',
        postal_code: '12207',
        country: 'US',
      },
      tax_id: ['911144442', 'us_ein'],
      metadata: { plan: 'gold', seats: 3, beta: true },
      deleted_at: null,
      modified_at: null,
      avatar_url: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=404$/),
    });
    expect(created.created_at).toMatch(/(Z|[+-]\d\d:\d\d)$/);
  });

  it('records customer.created then customer.state_changed in the outbox', async () => {
    const merchant = await createMerchant(daemon());
    const customer = await createCustomer(merchant);
    const events = await outbox(merchant.organization.id);
    expect(events.map((event) => event.type)).toEqual(['customer.created', 'customer.state_changed']);
    expect(events[0]!.data).toEqual(customer);
    expect(events[1]!.data).toEqual({ ...customer, active_subscriptions: [], granted_benefits: [], active_meters: [] });

    await merchant.api.call('PATCH', `/v1/customers/${customer.id}`, { body: { name: 'Renamed' } });
    await merchant.api.call('DELETE', `/v1/customers/${customer.id}`);
    expect((await outbox(merchant.organization.id)).map((event) => event.type)).toEqual([
      'customer.created',
      'customer.state_changed',
      'customer.updated',
      'customer.state_changed',
      'customer.deleted',
      'customer.state_changed',
    ]);
  });

  it('answers invalid input with 422 and the field’s loc', async () => {
    const merchant = await createMerchant(daemon());
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [{ email: 'not-an-email' }, ['body', 'email']],
      [{}, ['body', 'email']],
      [{ email: uniqueEmail(), billing_address: { country: 'XX' } }, ['body', 'billing_address', 'country']],
      [{ email: uniqueEmail(), billing_address: { country: 'RU' } }, ['body', 'billing_address', 'country']],
      [
        { email: uniqueEmail(), billing_address: { country: 'US', state: 'Narnia' } },
        ['body', 'billing_address', 'state'],
      ],
      [{ email: uniqueEmail(), name: 'x'.repeat(257) }, ['body', 'name']],
      [{ email: uniqueEmail(), external_id: 'x'.repeat(257) }, ['body', 'external_id']],
      [{ email: uniqueEmail(), metadata: { nested: { deep: 1 } } }, ['body', 'metadata', 'nested']],
      [{ email: uniqueEmail(), metadata: { ['k'.repeat(41)]: 'v' } }, ['body', 'metadata', 'k'.repeat(41)]],
      [{ email: 42 }, ['body', 'email']],
      [{ email: uniqueEmail(), name: ['Ada'] }, ['body', 'name']],
      [{ email: uniqueEmail(), type: 'company' }, ['body', 'type']],
      [{ email: uniqueEmail(), surprise: true }, ['body', 'surprise']],
      [{ email: uniqueEmail(), tax_id: 'FR61954506077' }, ['body', 'billing_address']],
      [{ email: uniqueEmail(), tax_id: '12', billing_address: { country: 'FR' } }, ['body', 'tax_id']],
    ];
    for (const [body, loc] of cases) {
      const response = await merchant.api.post('/v1/customers/', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(
        response.json.detail.map((issue: { loc: unknown }) => issue.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    expect((await merchant.api.get('/v1/customers/')).json.pagination.total_count).toBe(0);
  });

  it('refuses a duplicate e-mail address or external id in one organization, but not in another', async () => {
    const merchant = await createMerchant(daemon());
    const email = uniqueEmail('dup');
    await createCustomer(merchant, { email, external_id: 'ext-1' });
    const again = await merchant.api.post('/v1/customers/', { email: email.toUpperCase(), external_id: 'ext-1' });
    expect(again.status).toBe(422);
    expect(again.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'email'], msg: 'A customer with this email address already exists.' }),
      expect.objectContaining({
        loc: ['body', 'external_id'],
        msg: 'A customer with this external ID already exists.',
      }),
    ]);
    const other = await createMerchant(daemon());
    await createCustomer(other, { email, external_id: 'ext-1' });
  });

  it('creates exactly one customer when the same e-mail address is created concurrently', async () => {
    const merchant = await createMerchant(daemon());
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => merchant.api.post('/v1/customers/', { email })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.status).toBe(422);
      expect(response.json.detail[0].loc).toEqual(['body', 'email']);
    }
    expect((await merchant.api.get('/v1/customers/', { query: { email } })).json.pagination.total_count).toBe(1);
    expect((await outbox(merchant.organization.id)).filter((event) => event.type === 'customer.created')).toHaveLength(
      1,
    );
  });

  it('gets, updates and deletes by id and by external id', async () => {
    const merchant = await createMerchant(daemon());
    const customer = await createCustomer(merchant, { external_id: 'ext-a', name: 'A' });
    expect((await merchant.api.get(`/v1/customers/${customer.id}`)).json).toEqual(customer);
    expect((await merchant.api.get('/v1/customers/external/ext-a')).json).toEqual(customer);

    const newEmail = uniqueEmail('changed');
    const updated = await merchant.api.call('PATCH', '/v1/customers/external/ext-a', {
      body: { email: newEmail, name: null, metadata: { a: 1 } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      email: newEmail,
      name: null,
      metadata: { a: 1 },
      external_id: 'ext-a',
      email_verified: false,
    });
    expect(updated.json.modified_at).not.toBeNull();
    // The external route has no external_id field at all.
    expect(
      (await merchant.api.call('PATCH', '/v1/customers/external/ext-a', { body: { external_id: 'x' } })).status,
    ).toBe(422);

    const team = await merchant.api.call('PATCH', `/v1/customers/${customer.id}`, { body: { type: 'team' } });
    expect(team.json.type).toBe('team');
    const downgrade = await merchant.api.call('PATCH', `/v1/customers/${customer.id}`, {
      body: { type: 'individual' },
    });
    expect(downgrade.status).toBe(422);
    expect(downgrade.json.detail[0].loc).toEqual(['body', 'type']);

    const state = await merchant.api.get(`/v1/customers/${customer.id}/state`);
    expect(state.status).toBe(200);
    expect(state.json).toMatchObject({
      id: customer.id,
      active_subscriptions: [],
      granted_benefits: [],
      active_meters: [],
    });
    expect((await merchant.api.get('/v1/customers/external/ext-a/state')).json.id).toBe(customer.id);

    expect((await merchant.api.call('DELETE', '/v1/customers/external/ext-a')).status).toBe(204);
    expect((await merchant.api.get(`/v1/customers/${customer.id}`)).status).toBe(404);
    expect((await merchant.api.get('/v1/customers/external/ext-a')).status).toBe(404);
  });

  it('keeps external_id once set: 422 when changed, allowed when set for the first time', async () => {
    const merchant = await createMerchant(daemon());
    const first = await createCustomer(merchant);
    const other = await createCustomer(merchant, { external_id: 'taken' });
    const duplicate = await merchant.api.call('PATCH', `/v1/customers/${first.id}`, { body: { external_id: 'taken' } });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.detail[0]).toMatchObject({
      loc: ['body', 'external_id'],
      msg: 'A customer with this external ID already exists.',
    });
    const set = await merchant.api.call('PATCH', `/v1/customers/${first.id}`, { body: { external_id: 'mine' } });
    expect(set.json.external_id).toBe('mine');
    expect(
      (await merchant.api.call('PATCH', `/v1/customers/${first.id}`, { body: { external_id: 'mine' } })).status,
    ).toBe(200);
    for (const externalId of ['changed', null]) {
      const changed = await merchant.api.call('PATCH', `/v1/customers/${other.id}`, {
        body: { external_id: externalId },
      });
      expect(changed.status).toBe(422);
      expect(changed.json.detail).toEqual([
        {
          loc: ['body', 'external_id'],
          msg: 'Customer external ID cannot be updated.',
          type: 'value_error',
          input: externalId,
        },
      ]);
    }
    expect((await merchant.api.get(`/v1/customers/${other.id}`)).json.external_id).toBe('taken');
  });

  it('refuses an e-mail address another customer has, and a billing address reset to null', async () => {
    const merchant = await createMerchant(daemon());
    const a = await createCustomer(merchant, { billing_address: { country: 'FR' } });
    const b = await createCustomer(merchant);
    const clash = await merchant.api.call('PATCH', `/v1/customers/${b.id}`, { body: { email: a.email.toUpperCase() } });
    expect(clash.status).toBe(422);
    expect(clash.json.detail[0].msg).toBe('A customer with this email address already exists.');
    const reset = await merchant.api.call('PATCH', `/v1/customers/${a.id}`, { body: { billing_address: null } });
    expect(reset.status).toBe(422);
    expect(reset.json.detail[0].loc).toEqual(['body', 'billing_address']);
    const vat = await merchant.api.call('PATCH', `/v1/customers/${a.id}`, { body: { tax_id: 'FR 61 954 506 077' } });
    expect(vat.json.tax_id).toEqual(['FR61954506077', 'eu_vat']);
  });

  it('soft-deletes: gone from gets and lists, and the e-mail address and external id can be used again', async () => {
    const merchant = await createMerchant(daemon());
    const email = uniqueEmail('reuse');
    const customer = await createCustomer(merchant, { email, external_id: 'again' });
    expect((await merchant.api.call('DELETE', `/v1/customers/${customer.id}`)).status).toBe(204);
    expect((await merchant.api.call('DELETE', `/v1/customers/${customer.id}`)).status).toBe(404);
    expect((await merchant.api.get(`/v1/customers/${customer.id}/state`)).status).toBe(404);
    expect((await merchant.api.call('PATCH', `/v1/customers/${customer.id}`, { body: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await merchant.api.get('/v1/customers/')).json.pagination.total_count).toBe(0);
    const reborn = await createCustomer(merchant, { email, external_id: 'again' });
    expect(reborn.id).not.toBe(customer.id);
    const row = await daemon().core.db('customers').where({ id: customer.id }).first();
    expect(row.deleted_at).not.toBeNull();
    const deleted = (await outbox(merchant.organization.id)).find((event) => event.type === 'customer.deleted');
    expect(deleted?.data.deleted_at).toEqual(expect.any(String));
  });

  it('anonymizes on request, keeping the external id', async () => {
    const merchant = await createMerchant(daemon());
    const customer = await createCustomer(merchant, {
      name: 'Private Person',
      external_id: 'keep',
      billing_address: { country: 'DE' },
    });
    expect(
      (await merchant.api.call('DELETE', `/v1/customers/${customer.id}`, { query: { anonymize: 'true' } })).status,
    ).toBe(204);
    const row = await daemon().core.db('customers').where({ id: customer.id }).first();
    expect(row).toMatchObject({ name: null, billing_address: null, external_id: 'keep' });
    expect(row.email).toMatch(/@anonymized\.invalid$/);
  });

  it('lists with filters, search, metadata, sorting and pages', async () => {
    const merchant = await createMerchant(daemon());
    const alice = await createCustomer(merchant, {
      email: uniqueEmail('alice'),
      name: 'Alice Smith',
      metadata: { tier: 'pro', seats: 5 },
    });
    daemon().clock.advance(1000);
    const bob = await createCustomer(merchant, {
      email: uniqueEmail('bob'),
      name: 'Bob Jones',
      metadata: { tier: 'free', beta: true },
    });
    daemon().clock.advance(1000);
    const carol = await createCustomer(merchant, {
      email: uniqueEmail('carol'),
      name: '100%_Carol',
      metadata: { tier: 'pro' },
    });
    const ids = async (query: Record<string, string>) =>
      (await merchant.api.get('/v1/customers/', { query })).json.items.map((c: { id: string }) => c.id);

    expect(await ids({})).toEqual([carol.id, bob.id, alice.id]);
    expect(await ids({ sorting: 'created_at' })).toEqual([alice.id, bob.id, carol.id]);
    expect(await ids({ sorting: 'name' })).toEqual([carol.id, alice.id, bob.id]);
    expect(await ids({ email: alice.email.toUpperCase() })).toEqual([alice.id]);
    expect(await ids({ query: 'jones' })).toEqual([bob.id]);
    expect(await ids({ query: '%_' })).toEqual([carol.id]);
    expect(await ids({ 'metadata[tier]': 'pro' })).toEqual([carol.id, alice.id]);
    expect(await ids({ 'metadata[seats]': '5' })).toEqual([alice.id]);
    expect(await ids({ 'metadata[beta]': 'true' })).toEqual([bob.id]);
    expect(await ids({ organization_id: merchant.organization.id, limit: '2', page: '2' })).toEqual([alice.id]);
    const page = await merchant.api.get('/v1/customers/', { query: { limit: '2' } });
    expect(page.json.pagination).toEqual({ total_count: 3, max_page: 2 });
    const badSort = await merchant.api.get('/v1/customers/', { query: { sorting: 'password' } });
    expect(badSort.status).toBe(422);
    expect(badSort.json.detail[0].loc[0]).toBe('query');
  });

  it('hides another organization’s customers behind 404 on every route and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const theirs = await createCustomer(b, { external_id: 'b-ext' });
    const attempts = [
      a.api.get(`/v1/customers/${theirs.id}`),
      a.api.get('/v1/customers/external/b-ext'),
      a.api.get(`/v1/customers/${theirs.id}/state`),
      a.api.get('/v1/customers/external/b-ext/state'),
      a.api.call('PATCH', `/v1/customers/${theirs.id}`, { body: { name: 'hijacked' } }),
      a.api.call('PATCH', '/v1/customers/external/b-ext', { body: { name: 'hijacked' } }),
      a.api.call('DELETE', `/v1/customers/${theirs.id}`),
      a.api.call('DELETE', '/v1/customers/external/b-ext'),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
    }
    expect((await a.api.get('/v1/customers/', { query: { organization_id: b.organization.id } })).json.items).toEqual(
      [],
    );
    expect((await a.api.post('/v1/customer-sessions/', { customer_id: theirs.id })).status).toBe(422);
    expect((await b.api.get(`/v1/customers/${theirs.id}`)).json).toEqual(theirs);
  });

  it('lets a member read but not write (403), and needs the customers scopes', async () => {
    const merchant = await createMerchant(daemon());
    const customer = await createCustomer(merchant);
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/customers/${customer.id}`)).status).toBe(200);
    expect((await asMember.get('/v1/customers/')).json.pagination.total_count).toBe(1);
    for (const response of [
      await asMember.post('/v1/customers/', { email: uniqueEmail(), organization_id: merchant.organization.id }),
      await asMember.call('PATCH', `/v1/customers/${customer.id}`, { body: { name: 'x' } }),
      await asMember.call('DELETE', `/v1/customers/${customer.id}`),
      await asMember.post('/v1/customer-sessions/', { customer_id: customer.id }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
    // The owner's own session token is a /v1 bearer too (the CLI uses it).
    expect((await merchant.session.post('/v1/customers/', { email: uniqueEmail() })).status).toBe(201);

    const reader = await createMerchant(daemon(), { scopes: ['customers:read'] });
    expect((await reader.api.get('/v1/customers/')).status).toBe(200);
    expect((await reader.api.post('/v1/customers/', { email: uniqueEmail() })).status).toBe(403);
    expect((await reader.api.post('/v1/customer-sessions/', { customer_id: customer.id })).status).toBe(403);
  });
});

describe('/v1/customer-sessions and the customer portal', () => {
  it('creates a session by id or external id whose token opens the portal API for one hour', async () => {
    const merchant = await createMerchant(daemon());
    const customer = await createCustomer(merchant, { external_id: 'portal-user', name: 'Paula' });
    const created = await merchant.api.post('/v1/customer-sessions/', {
      customer_id: customer.id,
      return_url: 'https://shop.example/account',
    });
    expect(created.status, created.text).toBe(201);
    const session = created.json;
    expect(session).toMatchObject({
      customer_id: customer.id,
      customer,
      return_url: 'https://shop.example/account',
      modified_at: null,
    });
    expect(session.token).toMatch(/^till_cst_[A-Za-z0-9]{43}$/);
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(3_600_000);
    const url = new URL(session.customer_portal_url);
    expect(`${url.origin}/`).toBe(new URL('/', daemon().config.baseUrl).toString());
    expect(url.pathname).toBe(`/portal/${merchant.organization.slug}`);
    expect(url.searchParams.get('customer_session_token')).toBe(session.token);
    const stored = await daemon().core.db('customer_sessions').where({ id: session.id }).first();
    expect(stored.token_hash).not.toContain(session.token);

    const byExternal = await merchant.api.post('/v1/customer-sessions/', { external_customer_id: 'portal-user' });
    expect(byExternal.json.customer_id).toBe(customer.id);

    const portal = bearerClient(daemon(), session.token);
    const me = await portal.get('/v1/customer-portal/customers/me');
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({
      id: customer.id,
      email: customer.email,
      name: 'Paula',
      billing_name: 'Paula',
      oauth_accounts: {},
      type: 'individual',
    });

    const updated = await portal.call('PATCH', '/v1/customer-portal/customers/me', {
      body: {
        billing_name: 'Paula GmbH',
        billing_address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
        tax_id: 'DE123456789',
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      billing_name: 'Paula GmbH',
      tax_id: ['DE123456789', 'eu_vat'],
      billing_address: { country: 'DE', city: 'Berlin' },
    });
    expect((await merchant.api.get(`/v1/customers/${customer.id}`)).json).toMatchObject({
      name: 'Paula',
      billing_name: 'Paula GmbH',
    });
    const badTax = await portal.call('PATCH', '/v1/customer-portal/customers/me', { body: { tax_id: 'nope' } });
    expect(badTax.status).toBe(422);
    expect(badTax.json.detail[0].loc).toEqual(['body', 'tax_id']);

    // A customer token is no merchant token, and a merchant token no customer token.
    expect((await portal.get('/v1/customers/')).status).toBe(401);
    expect((await merchant.api.get('/v1/customer-portal/customers/me')).status).toBe(401);

    daemon().clock.advance(3_600_000);
    const expired = await portal.get('/v1/customer-portal/customers/me');
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ error: 'Unauthorized', detail: expect.any(String) });
  });

  it('refuses unknown tokens and customers, and ends sessions when the customer is deleted', async () => {
    const merchant = await createMerchant(daemon());
    expect((await bearerClient(daemon(), 'till_cst_unknown').get('/v1/customer-portal/customers/me')).status).toBe(401);
    expect((await new TestClient(daemon().url).get('/v1/customer-portal/customers/me')).status).toBe(401);
    const missing = await merchant.api.post('/v1/customer-sessions/', {
      customer_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'customer_id'], msg: 'Customer does not exist.' });
    const neither = await merchant.api.post('/v1/customer-sessions/', {});
    expect(neither.status).toBe(422);
    expect(neither.json.detail[0].loc).toEqual(['body', 'customer_id']);
    expect(
      (await merchant.api.post('/v1/customer-sessions/', { external_customer_id: 'nobody' })).json.detail[0].loc,
    ).toEqual(['body', 'external_customer_id']);
    expect(
      (
        await merchant.api.post('/v1/customer-sessions/', {
          external_customer_id: 'x',
          return_url: 'javascript:alert(1)',
        })
      ).json.detail[0].loc,
    ).toEqual(['body', 'return_url']);

    const customer = await createCustomer(merchant);
    const session = (await merchant.api.post('/v1/customer-sessions/', { customer_id: customer.id })).json;
    const portal = bearerClient(daemon(), session.token);
    expect((await portal.get('/v1/customer-portal/customers/me')).status).toBe(200);
    await merchant.api.call('DELETE', `/v1/customers/${customer.id}`);
    expect((await portal.get('/v1/customer-portal/customers/me')).status).toBe(401);
  });
});
