import { describe, expect, it } from 'vitest';
import { resolveForCheckout } from '../../src/core/checkout-links/resolve.js';
import { archiveProduct, createDiscount, createProduct } from '../helpers/discount-fixtures.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';

// Opening a checkout link: a new checkout built from the link, and a redirect to its hosted page.

const daemon = useTestDaemon();

async function createLink(api: TestClient, fields: Record<string, unknown>) {
  const response = await api.post('/v1/checkout-links/', { payment_processor: 'stripe', ...fields });
  if (response.status !== 201) throw new Error(`link create failed: ${response.status} ${response.text}`);
  return response.json;
}

describe('GET /v1/checkout-links/{client_secret}/redirect', () => {
  it('starts a checkout carrying the link’s products, discount, URLs, flags and metadata', async () => {
    const { api, organization } = await createMerchant(daemon());
    const kept = await createProduct(api, { name: 'Kept' });
    const gone = await createProduct(api, { name: 'Gone' });
    const discount = await createDiscount(api);
    const link = await createLink(api, {
      products: [gone.id, kept.id],
      discount_id: discount.id,
      success_url: 'https://shop.example/thanks?c={CHECKOUT_ID}',
      require_billing_address: true,
      allow_discount_codes: false,
      metadata: { source: 'newsletter' },
    });
    await archiveProduct(api, gone.id);
    expect(
      (await resolveForCheckout(daemon().core.db, link.client_secret, daemon().core.readCache))?.products.map(
        (product) => product.name,
      ),
    ).toEqual(['Kept']);

    const anonymous = new TestClient(daemon().url);
    const response = await anonymous.get(`/v1/checkout-links/${link.client_secret}/redirect`);
    expect(response.status).toBe(303);
    expect(response.headers['cache-control']).toBe('no-store');
    const location = String(response.headers.location);
    expect(location).toMatch(new RegExp(`^${daemon().url}/checkout/till_c_[A-Za-z0-9]{43}$`));
    const checkout = (await anonymous.get(`/v1/checkouts/client/${location.split('/').pop()}`)).json;
    expect(checkout).toMatchObject({
      status: 'open',
      url: location,
      organization_id: organization.id,
      product_id: kept.id,
      products: [expect.objectContaining({ id: kept.id })],
      discount_id: discount.id,
      amount: 1500,
      discount_amount: 375,
      total_amount: 1125,
      allow_discount_codes: false,
      require_billing_address: true,
    });
    // The wire shows the success URL with its placeholder filled in, as Polar does.
    expect(checkout.success_url).toBe(`https://shop.example/thanks?c=${checkout.id}`);
    expect((await api.get(`/v1/checkouts/${checkout.id}`)).json.metadata).toEqual({ source: 'newsletter' });
    const row = await daemon().core.db('checkouts').where({ id: checkout.id }).first();
    expect(row.checkout_link_id).toBe(link.id);
    const created = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: organization.id, type: 'checkout.created' });
    expect(created).toHaveLength(1);

    // Every opening is a checkout of its own; the hosted page it leads to renders.
    const again = await anonymous.get(`/v1/checkout-links/${link.client_secret}/redirect`);
    expect(again.status).toBe(303);
    expect(again.headers.location).not.toBe(location);
    const page = await anonymous.get(new URL(location).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Kept');
  });

  it('drops a link discount that no longer applies instead of failing', async () => {
    const { api } = await createMerchant(daemon());
    const product = await createProduct(api);
    const other = await createProduct(api, { name: 'Other' });
    const discount = await createDiscount(api, { products: [other.id] });
    const link = await createLink(api, { products: [product.id], discount_id: discount.id });
    const anonymous = new TestClient(daemon().url);
    const response = await anonymous.get(`/v1/checkout-links/${link.client_secret}/redirect`);
    expect(response.status).toBe(303);
    const checkout = (await anonymous.get(`/v1/checkouts/client/${String(response.headers.location).split('/').pop()}`))
      .json;
    expect(checkout).toMatchObject({ discount_id: null, total_amount: 1500 });
  });

  it('prefills e-mail, name and discount code from the query, ignoring values that do not validate', async () => {
    const { api } = await createMerchant(daemon());
    const product = await createProduct(api);
    const discount = await createDiscount(api, { code: 'WELCOME' });
    const link = await createLink(api, { products: [product.id] });
    const anonymous = new TestClient(daemon().url);
    const open = async (query: Record<string, string>) => {
      const response = await anonymous.get(`/v1/checkout-links/${link.client_secret}/redirect`, { query });
      expect(response.status).toBe(303);
      return (await anonymous.get(`/v1/checkouts/client/${String(response.headers.location).split('/').pop()}`)).json;
    };
    const filled = await open({ customer_email: 'Ada@Example.com', customer_name: 'Ada', discount_code: 'WELCOME' });
    expect(filled).toMatchObject({
      customer_email: 'ada@example.com',
      customer_name: 'Ada',
      discount_id: discount.id,
      total_amount: 1125,
    });
    const ignored = await open({ customer_email: 'not-an-email', discount_code: 'NOPE', customer_name: 'Bo' });
    expect(ignored).toMatchObject({ customer_email: null, customer_name: 'Bo', discount_id: null, total_amount: 1500 });
  });
});
