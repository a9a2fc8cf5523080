import { describe, expect, it } from 'vitest';
import { resolveForCheckout } from '../../src/core/checkout-links/resolve.js';
import { archiveProduct, createDiscount, createProduct } from '../helpers/discount-fixtures.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function createLink(api: TestClient, fields: Record<string, unknown>) {
  const response = await api.post('/v1/checkout-links/', { payment_processor: 'stripe', ...fields });
  if (response.status !== 201) throw new Error(`link create failed: ${response.status} ${response.text}`);
  return response.json;
}

describe('POST /v1/checkout-links/', () => {
  it('creates a link for products with a discount, in Polar’s shape', async () => {
    const { api, organization } = await createMerchant(daemon());
    const first = await createProduct(api, { name: 'First' });
    const second = await createProduct(api, { name: 'Second' });
    const discount = await createDiscount(api, { code: 'LINK10' });
    const response = await api.post('/v1/checkout-links/', {
      payment_processor: 'stripe',
      products: [second.id, first.id, second.id],
      discount_id: discount.id,
      success_url: 'https://shop.example/thanks?checkout_id={CHECKOUT_ID}',
      label: 'Newsletter',
      metadata: { source: 'mail' },
    });
    expect(response.status).toBe(201);
    const link = response.json;
    expect(link).toEqual({
      id: expect.any(String),
      created_at: daemon().clock.now().toISOString(),
      modified_at: null,
      trial_interval: null,
      trial_interval_count: null,
      metadata: { source: 'mail' },
      payment_processor: 'stripe',
      client_secret: expect.stringMatching(/^till_cl_[A-Za-z0-9]{43}$/),
      success_url: 'https://shop.example/thanks?checkout_id={CHECKOUT_ID}',
      return_url: null,
      label: 'Newsletter',
      allow_discount_codes: true,
      require_billing_address: false,
      discount_id: discount.id,
      seats: null,
      organization_id: organization.id,
      products: [
        expect.objectContaining({
          id: second.id,
          name: 'Second',
          prices: [expect.objectContaining({ price_amount: 1500 })],
          benefits: [],
          medias: [],
        }),
        expect.objectContaining({ id: first.id }),
      ],
      discount: expect.objectContaining({ id: discount.id, code: 'LINK10', basis_points: 2500 }),
      url: `${daemon().url}/v1/checkout-links/${link.client_secret}/redirect`,
    });
    expect(link.products[0]).not.toHaveProperty('attached_custom_fields');
    expect(link.discount).not.toHaveProperty('products');
    expect((await api.get(`/v1/checkout-links/${link.id}`)).json).toEqual(link);
  });

  it('takes Polar’s deprecated product_id and product_price_id shapes', async () => {
    const { api } = await createMerchant(daemon());
    const product = await createProduct(api);
    const byProduct = await createLink(api, {
      product_id: product.id,
      allow_discount_codes: false,
      require_billing_address: true,
    });
    expect(byProduct).toMatchObject({
      products: [expect.objectContaining({ id: product.id })],
      allow_discount_codes: false,
      require_billing_address: true,
    });
    const byPrice = await createLink(api, {
      product_price_id: product.prices[0]!.id,
      trial_interval: 'week',
      trial_interval_count: 2,
    });
    expect(byPrice).toMatchObject({
      products: [expect.objectContaining({ id: product.id })],
      trial_interval: 'week',
      trial_interval_count: 2,
    });
    const unknownPrice = await api.post('/v1/checkout-links/', {
      payment_processor: 'stripe',
      product_price_id: crypto.randomUUID(),
    });
    expect(unknownPrice.json.detail[0].loc).toEqual(['body', 'product_price_id']);
  });

  it.each([
    ['no products', {}, ['body', 'products']],
    ['an empty product list', { products: [] }, ['body', 'products']],
    ['two ways of naming products', { products: ['x'], product_id: 'x' }, ['body', 'product_id']],
    ['no payment processor', { payment_processor: undefined, products: ['x'] }, ['body', 'payment_processor']],
    ['another payment processor', { payment_processor: 'paypal', products: ['x'] }, ['body', 'payment_processor']],
    ['a javascript: success URL', { products: ['x'], success_url: 'javascript:alert(1)' }, ['body', 'success_url']],
    ['a relative success URL', { products: ['x'], success_url: '/thanks' }, ['body', 'success_url']],
    [
      'an over-long success URL',
      { products: ['x'], success_url: `https://example.com/${'a'.repeat(2100)}` },
      ['body', 'success_url'],
    ],
    ['an over-long label', { products: ['x'], label: 'l'.repeat(257) }, ['body', 'label']],
    ['nested metadata', { products: ['x'], metadata: { a: { b: 1 } } }, ['body', 'metadata', 'a']],
    [
      'a 1001-day trial',
      { products: ['x'], trial_interval: 'day', trial_interval_count: 1001 },
      ['body', 'trial_interval_count'],
    ],
    ['seats (not in Till)', { products: ['x'], seats: 3 }, ['body', 'seats']],
  ])('refuses %s with a 422 at the field', async (_label, fields, loc) => {
    const { api } = await createMerchant(daemon());
    const response = await api.post('/v1/checkout-links/', { payment_processor: 'stripe', ...fields });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
  });

  it('sells only the organization’s own live products and applies only its own discounts', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const own = await createProduct(a.api);
    const archived = await createProduct(a.api);
    await archiveProduct(a.api, archived.id);
    const foreign = await createProduct(b.api);
    const foreignDiscount = await createDiscount(b.api);
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [{ products: [own.id, foreign.id] }, ['body', 'products', 1]],
      [{ products: [foreign.id] }, ['body', 'products', 0]],
      [{ products: [own.id, archived.id] }, ['body', 'products', 1]],
      [{ products: [crypto.randomUUID()] }, ['body', 'products', 0]],
      [{ product_id: foreign.id }, ['body', 'product_id']],
      [{ products: [own.id], discount_id: foreignDiscount.id }, ['body', 'discount_id']],
    ];
    for (const [fields, loc] of cases) {
      const response = await a.api.post('/v1/checkout-links/', { payment_processor: 'stripe', ...fields });
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.json.detail[0].loc).toEqual(loc);
    }
    expect((await a.api.get('/v1/checkout-links/')).json.items).toEqual([]);
  });
});

describe('GET /v1/checkout-links/', () => {
  it('lists oldest first, filters by product and organization, and pages', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const p1 = await createProduct(merchant.api);
    const p2 = await createProduct(merchant.api);
    const links = [];
    for (const [label, products] of [
      ['b', [p1.id]],
      ['a', [p2.id]],
      ['c', [p1.id, p2.id]],
    ] as const) {
      links.push(await createLink(merchant.api, { label, products }));
      daemon().clock.advance(1000);
    }
    await createLink(other.api, { products: [(await createProduct(other.api)).id] });
    const all = await merchant.api.get('/v1/checkout-links/');
    expect(all.json.items.map((link: { label: string }) => link.label)).toEqual(['b', 'a', 'c']);
    expect(all.json.pagination).toEqual({ total_count: 3, max_page: 1 });
    const byProduct = await merchant.api.get('/v1/checkout-links/', {
      query: { product_id: p2.id, sorting: '-label' },
    });
    expect(byProduct.json.items.map((link: { label: string }) => link.label)).toEqual(['c', 'a']);
    const page = await merchant.api.get('/v1/checkout-links/', { query: { limit: '2', page: '2' } });
    expect(page.json.items.map((link: { id: string }) => link.id)).toEqual([links[2].id]);
    expect(
      (await merchant.api.get('/v1/checkout-links/', { query: { organization_id: other.organization.id } })).json.items,
    ).toEqual([]);
  });
});

describe('PATCH and DELETE /v1/checkout-links/{id}', () => {
  it('updates products, discount and settings, clearing with null', async () => {
    const { api } = await createMerchant(daemon());
    const p1 = await createProduct(api);
    const p2 = await createProduct(api);
    const discount = await createDiscount(api);
    const link = await createLink(api, {
      products: [p1.id],
      discount_id: discount.id,
      success_url: 'https://a.example/ok',
      label: 'Old',
    });
    daemon().clock.advance(5000);
    const updated = await api.call('PATCH', `/v1/checkout-links/${link.id}`, {
      body: {
        products: [p2.id, p1.id],
        discount_id: null,
        success_url: null,
        label: 'New',
        allow_discount_codes: false,
        require_billing_address: null,
        metadata: { k: 'v' },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({
      discount_id: null,
      discount: null,
      success_url: null,
      label: 'New',
      allow_discount_codes: false,
      require_billing_address: false,
      metadata: { k: 'v' },
    });
    expect(updated.json.products.map((p: { id: string }) => p.id)).toEqual([p2.id, p1.id]);
    expect(updated.json.modified_at).toBe(daemon().clock.now().toISOString());
    expect(updated.json.client_secret).toBe(link.client_secret);
    expect((await api.get(`/v1/checkout-links/${link.id}`)).json).toEqual(updated.json);

    const archived = await createProduct(api);
    await archiveProduct(api, archived.id);
    const refused = await api.call('PATCH', `/v1/checkout-links/${link.id}`, {
      body: { products: [p1.id, archived.id] },
    });
    expect(refused.json.detail[0].loc).toEqual(['body', 'products', 1]);
    expect((await api.call('PATCH', `/v1/checkout-links/${link.id}`, { body: { products: [] } })).status).toBe(422);
    expect(
      (await api.call('PATCH', `/v1/checkout-links/${link.id}`, { body: { discount_id: crypto.randomUUID() } })).json
        .detail[0].loc,
    ).toEqual(['body', 'discount_id']);
  });

  it('drops a deleted discount from its links', async () => {
    const { api } = await createMerchant(daemon());
    const discount = await createDiscount(api);
    const link = await createLink(api, { products: [(await createProduct(api)).id], discount_id: discount.id });
    expect((await api.call('DELETE', `/v1/discounts/${discount.id}`)).status).toBe(204);
    expect((await api.get(`/v1/checkout-links/${link.id}`)).json).toMatchObject({ discount_id: null, discount: null });
  });

  it('soft-deletes a link', async () => {
    const { api } = await createMerchant(daemon());
    const link = await createLink(api, { products: [(await createProduct(api)).id] });
    expect((await api.call('DELETE', `/v1/checkout-links/${link.id}`)).status).toBe(204);
    expect((await api.get(`/v1/checkout-links/${link.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/v1/checkout-links/${link.id}`)).status).toBe(404);
    expect((await api.get('/v1/checkout-links/')).json.items).toEqual([]);
    expect(await daemon().core.db('checkout_links').where({ id: link.id }).first()).toMatchObject({ id: link.id });
  });

  it('hides another organization’s links behind 404, and members only read', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const theirs = await createLink(b.api, { products: [(await createProduct(b.api)).id], label: 'B' });
    expect((await a.api.get(`/v1/checkout-links/${theirs.id}`)).status).toBe(404);
    expect((await a.api.call('PATCH', `/v1/checkout-links/${theirs.id}`, { body: { label: 'hijacked' } })).status).toBe(
      404,
    );
    expect((await a.api.call('DELETE', `/v1/checkout-links/${theirs.id}`)).status).toBe(404);
    expect((await b.api.get(`/v1/checkout-links/${theirs.id}`)).json).toEqual(theirs);

    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), b.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/checkout-links/${theirs.id}`)).status).toBe(200);
    const product = theirs.products[0].id as string;
    for (const response of [
      await asMember.post('/v1/checkout-links/', { payment_processor: 'stripe', products: [product] }),
      await asMember.call('PATCH', `/v1/checkout-links/${theirs.id}`, { body: { label: 'x' } }),
      await asMember.call('DELETE', `/v1/checkout-links/${theirs.id}`),
    ]) {
      expect(response.status).toBe(403);
    }
    const noScope = await createMerchant(daemon(), { scopes: ['checkout_links:read', 'products:write'] });
    const ownProduct = await createProduct(noScope.api);
    expect(
      (await noScope.api.post('/v1/checkout-links/', { payment_processor: 'stripe', products: [ownProduct.id] }))
        .status,
    ).toBe(403);
  });
});

describe('GET /v1/checkout-links/{client_secret}/redirect', () => {
  it('resolves live links without authentication and redirects to a new checkout', async () => {
    const { api } = await createMerchant(daemon());
    const kept = await createProduct(api, { name: 'Kept' });
    const gone = await createProduct(api, { name: 'Gone' });
    const discount = await createDiscount(api);
    const link = await createLink(api, { products: [gone.id, kept.id], discount_id: discount.id });
    await archiveProduct(api, gone.id);
    const anonymous = new TestClient(daemon().url);
    const response = await anonymous.get(`/v1/checkout-links/${link.client_secret}/redirect`);
    expect(response.status).toBe(303);
    expect(response.headers.location).toEqual(expect.any(String));
    const resolved = await resolveForCheckout(daemon().core.db, link.client_secret, daemon().core.readCache);
    expect(resolved?.link.id).toBe(link.id);
    expect(resolved?.products.map((product) => product.name)).toEqual(['Kept']);
    expect(resolved?.discount?.id).toBe(discount.id);
  });

  it('answers 404 for unknown and deleted links and links with nothing left on sale', async () => {
    const { api } = await createMerchant(daemon());
    const anonymous = new TestClient(daemon().url);
    const product = await createProduct(api);
    const deleted = await createLink(api, { products: [product.id] });
    await api.call('DELETE', `/v1/checkout-links/${deleted.id}`);
    const emptied = await createLink(api, { products: [product.id] });
    await archiveProduct(api, product.id);
    for (const secret of ['till_cl_unknown', deleted.client_secret, emptied.client_secret]) {
      const response = await anonymous.get(`/v1/checkout-links/${secret}/redirect`);
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
      expect(await resolveForCheckout(daemon().core.db, secret, daemon().core.readCache)).toBeNull();
    }
  });
});

describe('OpenAPI document', () => {
  it('describes the discount and checkout link operations with Polar’s schema names', async () => {
    const { api } = await createMerchant(daemon());
    const document = (await api.get('/v1/openapi.json')).json;
    for (const path of [
      '/v1/discounts/',
      '/v1/discounts/{id}',
      '/v1/checkout-links/',
      '/v1/checkout-links/{id}',
      '/v1/checkout-links/{client_secret}/redirect',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
    for (const schema of [
      'Discount',
      'DiscountFixedOnceForeverDuration',
      'DiscountPercentageRepeatDuration',
      'DiscountCreate',
      'DiscountUpdate',
      'CheckoutLink',
      'CheckoutLinkCreate',
      'CheckoutLinkProduct',
    ]) {
      expect(document.components.schemas, schema).toHaveProperty([schema]);
    }
  });
});
