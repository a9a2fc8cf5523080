import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/kernel/clock.js';
import { productsRepository } from '../../src/core/products/repository.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { TestClient } from '../helpers/http.js';
import { ALL_SCOPES, bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

// Organizations, their catalogs and access tokens are read by every purchase and kept in memory across requests.
// Every change made through the API must be visible on the very next request, on this daemon and on every daemon
// sharing the PostgreSQL database.

const daemon = useTestDaemon();

/** Tables the read cache answers for: a warm purchase reads none of them. */
const CACHED_TABLES =
  /\bfrom [`"](organization_access_tokens|organizations|products|product_prices|product_benefits|product_medias|product_custom_fields|benefits|custom_fields|files)[`"]/;

/**
 * The grant engine's job, which the purchase schedules and which may run while it is measured, reads a product's
 * benefits fresh on purpose (a benefit removed a moment ago must not be granted): not the purchase's read.
 */
const GRANT_JOB_READ =
  /^select [`"]benefits[`"]\.[`"]id[`"], [`"]benefits[`"]\.[`"]type[`"] from [`"]product_benefits[`"]/;

async function cachedReads(on: TestDaemon, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => {
    if (CACHED_TABLES.test(query.sql) && !GRANT_JOB_READ.test(query.sql)) seen.push(query.sql);
  };
  on.core.db.on('query', listener);
  try {
    await work();
  } finally {
    on.core.db.off('query', listener);
  }
  return seen;
}

async function purchase(on: TestDaemon, merchant: Merchant, productId: string, email: string) {
  const checkout = await createCheckout(merchant, [productId]);
  const confirmed = await new TestClient(on.url).post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
    customer_email: email,
    customer_billing_address: { country: 'DE' },
    confirmation_token_id: 'tok_visa',
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.json;
}

async function benefit(merchant: Merchant, description: string) {
  const response = await merchant.api.post('/v1/benefits/', {
    type: 'custom',
    description,
    properties: { note: 'Join at example.com' },
  });
  expect(response.status, response.text).toBe(201);
  return response.json as { id: string };
}

async function customField(merchant: Merchant, name: string) {
  const response = await merchant.api.post('/v1/custom-fields/', {
    type: 'text',
    slug: 'company',
    name,
    properties: {},
  });
  expect(response.status, response.text).toBe(201);
  return response.json as { id: string };
}

describe('read cache', () => {
  it('serves a warm purchase without reading tokens, catalog or organization rows', async () => {
    const merchant = await createMerchant(daemon());
    let buyers = 0;
    const warmReads = async (productId: string) =>
      (await cachedReads(daemon(), () => purchase(daemon(), merchant, productId, `buyer${++buyers}@example.com`)))
        .length;
    // On PostgreSQL this daemon also hears its own announcement of the product's creation, a moment later, and drops
    // what the first purchase cached; on SQLite the second purchase is already served from memory.
    const settled = (productId: string) =>
      testDialect === 'postgres' ? eventually(() => warmReads(productId), 0) : warmReads(productId);
    const product = await createProduct(merchant, { name: 'Cached plan' });
    expect(await warmReads(product.id)).toBeGreaterThan(0);
    expect(await settled(product.id)).toBe(0);
    expect(await warmReads(product.id)).toBe(0);
    const recurring = await createProduct(merchant, { name: 'Cached monthly', recurring_interval: 'month' });
    expect(await warmReads(recurring.id)).toBeGreaterThan(0);
    expect(await settled(recurring.id)).toBe(0);
  });

  it('hands out frozen values', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    await createCheckout(merchant, [product.id]);
    const cached = (await productsRepository(daemon().core.db, daemon().core.readCache).findById(product.id))!;
    expect(Object.isFrozen(cached)).toBe(true);
    expect(() => {
      (cached as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    const prices = (await productsRepository(daemon().core.db, daemon().core.readCache).pricesOf([product.id])).get(
      product.id,
    )!;
    expect(() => prices.push(prices[0]!)).toThrow(TypeError);
    expect((await productsRepository(daemon().core.db, daemon().core.readCache).findById(product.id))!.name).toBe(
      'Pro plan',
    );
  });

  it('shows product and price changes on the next request', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { name: 'Before' });
    expect((await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json.product.name).toBe('Before');
    await merchant.api.call('PATCH', `/v1/products/${product.id}`, {
      body: { name: 'After', prices: [{ amount_type: 'fixed', price_amount: 2500, price_currency: 'usd' }] },
    });
    const next = (await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json;
    expect(next.product.name).toBe('After');
    expect(next.total_amount).toBe(2500);
    expect(next.product.prices.map((price: { price_amount: number }) => price.price_amount)).toEqual([2500]);
    expect(next.product_price.id).not.toBe(product.prices[0]!.id);
    // The archived price is no longer offered: naming it is refused at once.
    const archived = await merchant.api.post('/v1/checkouts/', { product_price_id: product.prices[0]!.id });
    expect(archived.status).toBe(422);
    await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { is_archived: true } });
    expect((await merchant.api.post('/v1/checkouts/', { products: [product.id] })).status).toBe(422);
  });

  it('shows renamed benefits and changed custom fields on the next request', async () => {
    const merchant = await createMerchant(daemon());
    const field = await customField(merchant, 'Company');
    const product = await createProduct(merchant, {
      attached_custom_fields: [{ custom_field_id: field.id, required: false }],
    });
    const perk = await benefit(merchant, 'Old perk');
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [perk.id] });
    const first = (await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json;
    expect(first.product.benefits.map((item: { description: string }) => item.description)).toEqual(['Old perk']);
    expect(first.attached_custom_fields[0].custom_field.name).toBe('Company');
    await merchant.api.call('PATCH', `/v1/benefits/${perk.id}`, { body: { type: 'custom', description: 'New perk' } });
    await merchant.api.call('PATCH', `/v1/custom-fields/${field.id}`, { body: { type: 'text', name: 'Employer' } });
    const next = (await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json;
    expect(next.product.benefits.map((item: { description: string }) => item.description)).toEqual(['New perk']);
    expect(next.attached_custom_fields[0].custom_field.name).toBe('Employer');
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [] });
    expect((await merchant.api.post('/v1/checkouts/', { products: [product.id] })).json.product.benefits).toEqual([]);
  });

  it('refuses a revoked, narrowed or expired token on the next request', async () => {
    const merchant = await createMerchant(daemon());
    const create = (body: Record<string, unknown>) =>
      merchant.session.post('/v1/organization-access-tokens/', {
        organization_id: merchant.organization.id,
        comment: 'cached',
        scopes: ALL_SCOPES,
        ...body,
      });
    const revoked = (await create({})).json;
    const byRevoked = bearerClient(daemon(), revoked.token);
    expect((await byRevoked.get('/v1/products/')).status).toBe(200);
    expect(
      (await merchant.session.call('DELETE', `/v1/organization-access-tokens/${revoked.organization_access_token.id}`))
        .status,
    ).toBe(204);
    expect((await byRevoked.get('/v1/products/')).status).toBe(401);

    const narrowed = (await create({})).json;
    const byNarrowed = bearerClient(daemon(), narrowed.token);
    expect((await byNarrowed.get('/v1/products/')).status).toBe(200);
    await merchant.session.call('PATCH', `/v1/organization-access-tokens/${narrowed.organization_access_token.id}`, {
      body: { scopes: ['benefits:read'] },
    });
    expect((await byNarrowed.get('/v1/products/')).status).toBe(403);
    expect((await byNarrowed.get('/v1/benefits/')).status).toBe(200);

    const expiring = (await create({ expires_in: 3600 })).json;
    const byExpiring = bearerClient(daemon(), expiring.token);
    expect((await byExpiring.get('/v1/products/')).status).toBe(200);
    daemon().clock.advance(3600 * SECOND);
    expect((await byExpiring.get('/v1/products/')).status).toBe(401);
  });

  it('keeps tokens through catalog changes, and drops them with their organization', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const tokenReads = async (work: () => Promise<unknown>) =>
      (await cachedReads(daemon(), work)).filter((sql) => /organization_access_tokens/.test(sql)).length;
    const listProducts = async () => expect((await merchant.api.get('/v1/products/')).status).toBe(200);
    await listProducts();
    // The product's own creation is announced to this daemon too (on PostgreSQL a moment later): tokens stay.
    await eventually(() => tokenReads(listProducts), 0);
    const renamed = await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { name: 'Renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await tokenReads(listProducts)).toBe(0);

    const deleted = await merchant.session.post('/api/auth/organization/delete', {
      organizationId: merchant.organization.id,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await merchant.api.get('/v1/products/')).status).toBe(401);
  });

  it('shows organization changes on the next request', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const buyer = new TestClient(daemon().url);
    expect((await buyer.get(`/v1/checkouts/client/${checkout.client_secret}`)).json.organization.name).toBe('Merchant');
    const updated = await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
      body: { name: 'Renamed', subscription_settings: { allow_customer_updates: false } },
    });
    expect(updated.status, updated.text).toBe(200);
    const seen = (await buyer.get(`/v1/checkouts/client/${checkout.client_secret}`)).json.organization;
    expect(seen.name).toBe('Renamed');
    expect(seen.allow_customer_updates).toBe(false);
  });
});

// Only PostgreSQL lets several daemons share a database; a SQLite run reports this suite as skipped.
describe.runIf(testDialect === 'postgres')('several daemons, one database', () => {
  it('PostgreSQL: a change made through one daemon reaches what another cached', async () => {
    const database = await createTestDatabase();
    const [a, b] = await Promise.all([0, 1].map(() => startTestDaemon({ databaseUrl: database.url })));
    try {
      const merchant = await createMerchant(a!);
      const onB = bearerClient(b!, merchant.token);
      const product = await createProduct(merchant, { name: 'Shared' });
      const name = async () => (await onB.post('/v1/checkouts/', { products: [product.id] })).json.product?.name;
      expect(await name()).toBe('Shared');
      expect(await name()).toBe('Shared');
      await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { name: 'Renamed on A' } });
      expect(await eventually(name, 'Renamed on A')).toBe('Renamed on A');

      const perk = await benefit(merchant, 'Perk');
      await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [perk.id] });
      const perks = async () =>
        (await onB.post('/v1/checkouts/', { products: [product.id] })).json.product?.benefits
          ?.map((item: { description: string }) => item.description)
          .join();
      expect(await eventually(perks, 'Perk')).toBe('Perk');
      await merchant.api.call('PATCH', `/v1/benefits/${perk.id}`, {
        body: { type: 'custom', description: 'Perk renamed' },
      });
      expect(await eventually(perks, 'Perk renamed')).toBe('Perk renamed');

      const checkout = await createCheckout(merchant, [product.id]);
      const organization = async () =>
        (await new TestClient(b!.url).get(`/v1/checkouts/client/${checkout.client_secret}`)).json.organization?.name;
      expect(await organization()).toBe('Merchant');
      await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
        body: { name: 'Renamed org' },
      });
      expect(await eventually(organization, 'Renamed org')).toBe('Renamed org');

      expect((await onB.get('/v1/products/')).status).toBe(200);
      const tokens = (await merchant.session.get('/v1/organization-access-tokens/')).json.items as Array<{
        id: string;
      }>;
      for (const token of tokens) await merchant.session.call('DELETE', `/v1/organization-access-tokens/${token.id}`);
      expect(await eventually(async () => (await onB.get('/v1/products/')).status, 401)).toBe(401);
    } finally {
      await Promise.all([a, b].map((d) => d!.close()));
      await database.drop();
    }
  });
});
