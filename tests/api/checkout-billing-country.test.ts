import { describe, expect, it } from 'vitest';
import { createCheckout as create, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { buyerEmail } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

// One rule for the billing address (core/checkouts/billing-address.ts): confirmation refuses what the checkout's
// billing_address_fields require, and the hosted page marks exactly those fields.

const daemon = useTestDaemon();
const buyer = () => new TestClient(daemon().url);

async function count(table: string, where: Record<string, unknown>): Promise<number> {
  const row = await daemon().core.db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

type CheckoutWire = Awaited<ReturnType<typeof create>> & {
  billing_address_fields: Record<string, string>;
  is_payment_form_required: boolean;
};
const createCheckout = async (...args: Parameters<typeof create>) => (await create(...args)) as CheckoutWire;

const locs = (detail: Array<{ loc: string[] }>) => detail.map((issue) => issue.loc.join('.'));

/** The opening tag of the element with this id. */
function tag(html: string, id: string): string {
  const found = new RegExp(`<[a-z]+ [^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  if (!found) throw new Error(`no element with id ${id}`);
  return found;
}

describe('the billing country of a checkout that takes a payment', () => {
  it('is required by the wire, the page and confirmation, which refuses without it and writes nothing', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_email: buyerEmail() });
    expect(checkout.billing_address_fields.country).toBe('required');
    const html = (await buyer().get(`/checkout/${checkout.client_secret}`)).text;
    expect(tag(html, 'billing_country')).toMatch(/required/);

    const refused = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      confirmation_token_id: 'tok_visa',
    });
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({
      error: 'RequestValidationError',
      detail: [{ loc: ['body', 'customer_billing_address', 'country'], msg: 'Field required', type: 'missing' }],
    });
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    expect(await count('payment_attempts', { checkout_id: checkout.id })).toBe(0);
    expect((await buyer().get(`/v1/checkouts/client/${checkout.client_secret}`)).json.status).toBe('open');

    const paid = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json.customer_billing_address).toMatchObject({ country: 'DE' });
  });

  it('is required for a subscription whose first period costs nothing, since its card is kept for renewals', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const discount = await merchant.api.post('/v1/discounts/', {
      name: 'First month free',
      duration: 'once',
      type: 'percentage',
      basis_points: 10_000,
    });
    const checkout = await createCheckout(merchant, [product.id], {
      customer_email: buyerEmail(),
      discount_id: discount.json.id,
    });
    expect(checkout).toMatchObject({ total_amount: 0, is_payment_form_required: true });
    expect(checkout.billing_address_fields.country).toBe('required');
    const refused = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      confirmation_token_id: 'tok_visa',
    });
    expect(locs(refused.json.detail)).toEqual(['body.customer_billing_address.country']);
  });

  it('asks the US and Canada for state and postal code too, on the wire and at confirmation', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], {
      customer_email: buyerEmail(),
      customer_billing_address: { country: 'CA' },
    });
    expect(checkout.billing_address_fields).toMatchObject({ state: 'required', postal_code: 'required' });
    const refused = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      confirmation_token_id: 'tok_visa',
    });
    expect(locs(refused.json.detail)).toEqual([
      'body.customer_billing_address.postal_code',
      'body.customer_billing_address.state',
    ]);
    const paid = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'CA', state: 'QC', postal_code: 'H2X 1Y4' },
      confirmation_token_id: 'tok_visa',
    });
    expect(paid.status, paid.text).toBe(200);
  });
});

describe('a free checkout', () => {
  it('asks for no address (as Polar shows the address only with the payment form) and completes without one', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { prices: [{ amount_type: 'free', price_currency: 'usd' }] });
    const checkout = await createCheckout(merchant, [product.id], { customer_email: buyerEmail() });
    expect(checkout.billing_address_fields).toMatchObject({ country: 'optional', state: 'disabled' });
    const html = (await buyer().get(`/checkout/${checkout.client_secret}`)).text;
    expect(tag(html, 'billing_country')).not.toMatch(/required/);
    const confirmed = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(1);
  });

  it('still asks for the whole address when the merchant requires one', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { prices: [{ amount_type: 'free', price_currency: 'usd' }] });
    const checkout = await createCheckout(merchant, [product.id], {
      customer_email: buyerEmail(),
      require_billing_address: true,
    });
    const refused = await buyer().post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {});
    expect(locs(refused.json.detail)).toEqual([
      'body.customer_billing_address.country',
      'body.customer_billing_address.line1',
      'body.customer_billing_address.postal_code',
      'body.customer_billing_address.city',
    ]);
  });
});
