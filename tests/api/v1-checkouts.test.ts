import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const buyer = () => new TestClient(daemon().url);
const email = () => `buyer-${Math.random().toString(36).slice(2, 10)}@example.com`;

async function count(table: string, where: Record<string, unknown>): Promise<number> {
  const row = await daemon().core.db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

describe('checkout → order', () => {
  it('creates a checkout, lets the buyer fill it in and pay, and records the order and events', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], {
      success_url: 'https://shop.example/thanks?c={CHECKOUT_ID}',
    });
    expect(checkout).toMatchObject({ status: 'open', total_amount: 1000 });
    expect(checkout.url).toBe(`${daemon().url}/checkout/${checkout.client_secret}`);

    const client = buyer();
    const seen = await client.get(`/v1/checkouts/client/${checkout.client_secret}`);
    expect(seen.status).toBe(200);
    expect(seen.json.organization.id).toBe(merchant.organization.id);
    expect(seen.json).not.toHaveProperty('metadata');
    const filled = await client.call('PATCH', `/v1/checkouts/client/${checkout.client_secret}`, {
      body: { customer_email: email(), customer_name: 'Ada Buyer' },
    });
    expect(filled.status).toBe(200);

    const paid = await client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    });
    expect(paid.status, paid.text).toBe(200);
    // CheckoutPublicConfirmed always says `confirmed` (SDK 0.47's literal); the checkout is `succeeded` from then on.
    expect(paid.json.status).toBe('confirmed');
    expect((await client.get(`/v1/checkouts/client/${checkout.client_secret}`)).json.status).toBe('succeeded');
    expect(paid.json.customer_session_token).toMatch(/^till_cst_/);
    expect(paid.json.customer_id).toEqual(expect.any(String));

    const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
    expect(order).toMatchObject({ status: 'paid', billing_reason: 'purchase' });
    expect(Number(order.total_amount)).toBe(1000);
    const types = (
      await daemon().core.db('outbox_events').where({ organization_id: merchant.organization.id }).orderBy('id')
    ).map((row) => row.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'checkout.created',
        'checkout.updated',
        'customer.created',
        'order.created',
        'order.paid',
        'customer.state_changed',
      ]),
    );
    expect(await count('payment_attempts', { checkout_id: checkout.id, status: 'succeeded' })).toBe(1);

    const again = await client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    });
    expect(again.status).toBe(403);
    expect(again.json.error).toBe('NotOpenCheckout');
  });

  it('shows a declined card as a PaymentError, creates no order, and lets the buyer try another card', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_email: email() });
    const client = buyer();
    const declined = await client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_chargeDeclined',
    });
    expect(declined.status).toBe(400);
    expect(declined.json).toEqual({ error: 'PaymentError', detail: 'Your card was declined.' });
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    expect(await count('payment_attempts', { checkout_id: checkout.id, status: 'failed' })).toBe(1);
    expect((await client.get(`/v1/checkouts/client/${checkout.client_secret}`)).json.status).toBe('open');
    const insufficient = await client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_chargeDeclinedInsufficientFunds',
    });
    expect(insufficient.json.detail).toBe('Your card has insufficient funds.');
    expect(
      (
        await client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        })
      ).status,
    ).toBe(200);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(1);
  });

  it('gives exactly one payment, one order and one set of events to twenty concurrent confirmations', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const checkout = await createCheckout(merchant, [product.id], { customer_email: email() });
    const client = buyer();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses)
      if (response.status !== 200) expect(response.json.error, response.text).toBe('NotOpenCheckout');
    expect(await count('orders', { checkout_id: checkout.id })).toBe(1);
    expect(await count('subscriptions', { checkout_id: checkout.id })).toBe(1);
    expect(await count('payment_attempts', { checkout_id: checkout.id })).toBe(1);
    expect(await count('outbox_events', { organization_id: merchant.organization.id, type: 'order.paid' })).toBe(1);
    expect(
      await count('outbox_events', { organization_id: merchant.organization.id, type: 'subscription.created' }),
    ).toBe(1);
  });

  it('refuses to confirm a checkout whose discount was used up since it was shown, rather than charge in full', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const discount = await createDiscount(merchant, { code: 'LASTONE', max_redemptions: 1 });
    const [first, second] = [
      await createCheckout(merchant, [product.id], { customer_email: email(), discount_id: discount.id }),
      await createCheckout(merchant, [product.id], { customer_email: email(), discount_id: discount.id }),
    ];
    const client = buyer();
    const confirm = (checkout: { client_secret: string }) =>
      client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
        customer_billing_address: { country: 'DE' },
        confirmation_token_id: 'tok_visa',
      });
    expect((await confirm(first)).status).toBe(200);
    const refused = await confirm(second);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail[0]).toMatchObject({
      loc: ['body', 'discount_code'],
      msg: 'This discount is no longer available.',
    });
    const shown = await client.get(`/v1/checkouts/client/${second.client_secret}`);
    expect(shown.json.status).toBe('open');
    expect(await count('payment_attempts', { checkout_id: second.id })).toBe(0);
  });

  it('redeems a discount with max_redemptions 1 once under ten concurrent checkouts', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const discount = await createDiscount(merchant, { code: 'ONLYONE', max_redemptions: 1 });
    const checkouts = await Promise.all(
      Array.from({ length: 10 }, () =>
        createCheckout(merchant, [product.id], { customer_email: email(), discount_id: discount.id }),
      ),
    );
    const client = buyer();
    const responses = await Promise.all(
      checkouts.map((checkout) =>
        client.post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          customer_billing_address: { country: 'DE' },
          confirmation_token_id: 'tok_visa',
        }),
      ),
    );
    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]!.json.discount_amount).toBe(100);
    const row = await daemon().core.db('discounts').where({ id: discount.id }).first();
    expect(Number(row.redemptions_count)).toBe(1);
    expect(await count('orders', { discount_id: discount.id })).toBe(1);
  });
});

describe('checkout search', () => {
  it('takes % and _ in ?query= literally, ignoring case, on both databases', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const underscore = await createCheckout(merchant, [product.id], { customer_email: 'John_Doe@example.com' });
    await createCheckout(merchant, [product.id], { customer_email: 'johnxdoe@example.com' });
    await createCheckout(merchant, [product.id]);
    const search = async (query: string) =>
      (await merchant.api.get('/v1/checkouts/', { query: { query } })).json.items.map((c: { id: string }) => c.id);
    expect(await search('john_doe')).toEqual([underscore.id]);
    expect(await search('JOHN_')).toEqual([underscore.id]);
    expect(await search('%')).toEqual([]);
    expect(await search('john%doe')).toEqual([]);
  });
});
