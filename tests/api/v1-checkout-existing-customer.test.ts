import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { buyerEmail } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// A checkout the merchant makes for a customer they already have (customer_id, or an external_customer_id that
// matches one) carries that customer's e-mail, name, billing address and tax id, as Polar's does, and the buyer
// confirms it with a card alone.

const daemon = useTestDaemon();
const buyer = () => new TestClient(daemon().url);

const ADDRESS = {
  line1: '1 Main St',
  line2: null,
  city: 'Albany',
  state: 'US-NY',
  postal_code: '12207',
  country: 'US',
};

async function existingCustomer(merchant: Merchant, externalId = `usr_${Math.random().toString(36).slice(2, 10)}`) {
  const created = await merchant.api.post('/v1/customers/', {
    email: buyerEmail(),
    name: 'Ada Lovelace',
    external_id: externalId,
    billing_address: { line1: '1 Main St', city: 'Albany', state: 'NY', postal_code: '12207', country: 'US' },
    tax_id: '91-1144442',
  });
  if (created.status !== 201) throw new Error(`customer create failed: ${created.status} ${created.text}`);
  return created.json as { id: string; email: string; external_id: string };
}

async function count(table: string, where: Record<string, unknown>): Promise<number> {
  const row = await daemon().core.db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function confirmWithCardOnly(clientSecret: string) {
  return buyer().post(`/v1/checkouts/client/${clientSecret}/confirm`, { confirmation_token_id: 'tok_visa' });
}

describe('a checkout for an existing customer', () => {
  it('by customer_id: carries their e-mail, name, billing address and tax id, and confirms with a card alone', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customer = await existingCustomer(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_id: customer.id });
    const prefilled = {
      customer_id: customer.id,
      customer_email: customer.email,
      customer_name: 'Ada Lovelace',
      customer_billing_address: ADDRESS,
      customer_tax_id: '911144442',
    };
    expect(checkout).toMatchObject(prefilled);
    expect((await merchant.api.get(`/v1/checkouts/${checkout.id}`)).json).toMatchObject(prefilled);
    const { customer_id: _id, ...shown } = prefilled;
    expect((await buyer().get(`/v1/checkouts/client/${checkout.client_secret}`)).json).toMatchObject(shown);
    const created = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: merchant.organization.id, type: 'checkout.created' })
      .first();
    expect(typeof created.payload === 'string' ? JSON.parse(created.payload) : created.payload).toMatchObject(
      prefilled,
    );

    const confirmed = await confirmWithCardOnly(checkout.client_secret);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json).toMatchObject({ status: 'confirmed', customer_id: customer.id, ...shown });
    const order = (await merchant.api.get('/v1/orders/', { query: { checkout_id: checkout.id } })).json.items[0];
    expect(order).toMatchObject({ customer_id: customer.id, billing_address: ADDRESS });
    expect(await count('customers', { organization_id: merchant.organization.id })).toBe(1);
  });

  it('by external_customer_id: links the customer who has it, with the same details', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customer = await existingCustomer(merchant, 'ba_user_42');
    const checkout = await createCheckout(merchant, [product.id], { external_customer_id: 'ba_user_42' });
    expect(checkout).toMatchObject({
      customer_id: customer.id,
      external_customer_id: 'ba_user_42',
      customer_email: customer.email,
      customer_name: 'Ada Lovelace',
      customer_billing_address: ADDRESS,
    });
    const confirmed = await confirmWithCardOnly(checkout.client_secret);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json.customer_id).toBe(customer.id);
    expect(await count('customers', { organization_id: merchant.organization.id })).toBe(1);
    expect(await count('orders', { checkout_id: checkout.id, customer_id: customer.id })).toBe(1);
  });

  it('keeps what the merchant sends over the customer’s details; a null counts as not sent', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customer = await existingCustomer(merchant);
    const checkout = await createCheckout(merchant, [product.id], {
      customer_id: customer.id,
      customer_name: 'A. L.',
      customer_email: null,
      customer_billing_address: { country: 'FR' },
    });
    expect(checkout).toMatchObject({
      customer_name: 'A. L.',
      customer_email: customer.email,
      customer_billing_address: { country: 'FR', line1: null, city: null },
    });
  });

  it('prefills nothing for an external id nobody has yet, and the purchase creates that customer', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], { external_customer_id: 'ba_new_user' });
    expect(checkout).toMatchObject({ customer_id: null, customer_email: null, external_customer_id: 'ba_new_user' });
    const missing = await confirmWithCardOnly(checkout.client_secret);
    expect(missing.status).toBe(422);
    expect(missing.json.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ['body', 'customer_email'],
      ['body', 'customer_billing_address', 'country'],
    ]);
    const email = buyerEmail();
    const confirmed = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_email: email,
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await merchant.api.get('/v1/customers/external/ba_new_user')).json).toMatchObject({
      id: confirmed.json.customer_id,
      email,
    });
  });

  it('gives the customer the details the buyer changed at confirmation, as a found customer gets them', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customer = await existingCustomer(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_id: customer.id });
    const moved = { line1: '2 Rue Neuve', city: 'Paris', postal_code: '75001', country: 'FR' };
    const confirmed = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: moved,
      customer_tax_id: null,
      confirmation_token_id: 'tok_visa',
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await merchant.api.get(`/v1/customers/${customer.id}`)).json.billing_address).toMatchObject(moved);
    expect(await count('outbox_events', { organization_id: merchant.organization.id, type: 'customer.updated' })).toBe(
      1,
    );
  });

  it('refuses to charge for a customer deleted since the checkout was made (409, no attempt, still open)', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const customer = await existingCustomer(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_id: customer.id });
    expect((await merchant.api.call('DELETE', `/v1/customers/${customer.id}`)).status).toBe(204);
    const refused = await confirmWithCardOnly(checkout.client_secret);
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({
      error: 'CheckoutCustomerDeleted',
      detail: 'The customer associated with this checkout has been deleted.',
    });
    expect(await count('payment_attempts', { checkout_id: checkout.id })).toBe(0);
    expect((await buyer().get(`/v1/checkouts/client/${checkout.client_secret}`)).json.status).toBe('open');
  });

  it('still refuses a customer_id of another organization as a 422 at customer_id', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const foreign = await existingCustomer(other);
    const refused = await merchant.api.post('/v1/checkouts/', { products: [product.id], customer_id: foreign.id });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'customer_id'], msg: 'Customer does not exist.' }),
    ]);
  });
});
