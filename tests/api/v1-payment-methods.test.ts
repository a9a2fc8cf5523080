import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

const RETURN_URL = 'https://shop.example/account';

function portal(token: string): TestClient {
  return new TestClient(daemon().url, { headers: { authorization: `Bearer ${token}` } });
}

async function portalFor(merchant: Merchant, customerId: string): Promise<TestClient> {
  const created = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
  expect(created.status, created.text).toBe(201);
  return portal(created.json.token as string);
}

async function subscribe(merchant: Merchant, fields: Record<string, unknown> = {}) {
  const product = await createProduct(merchant, { name: 'Club', recurring_interval: 'month' });
  return purchase(daemon(), merchant, product.id, fields);
}

/** What the subscription bills, straight from its row: the saved method and that method's processor reference. */
async function billing(subscriptionId: string) {
  const db = daemon().core.db;
  const row = await db('subscriptions').where({ id: subscriptionId }).first();
  const method = row.payment_method_id
    ? await db('payment_methods').where({ id: row.payment_method_id }).first()
    : undefined;
  return { methodId: row.payment_method_id as string | null, reference: row.payment_method_reference, method };
}

async function add(client: TestClient, token: string, setDefault = false) {
  return client.post('/v1/customer-portal/customers/me/payment-methods', {
    confirmation_token_id: token,
    set_default: setDefault,
    return_url: RETURN_URL,
  });
}

describe('a subscription checkout saves its card', () => {
  it('as the customer’s default, which the subscription bills; a one-time purchase saves nothing', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const listed = await merchant.api.get(`/v1/customers/${bought.customerId}/payment-methods`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual({
      items: [
        {
          id: expect.any(String),
          created_at: expect.any(String),
          modified_at: null,
          processor: 'stripe',
          customer_id: bought.customerId,
          type: 'card',
          method_metadata: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, wallet: null },
          is_default: true,
        },
      ],
      pagination: { total_count: 1, max_page: 1 },
    });
    const method = listed.json.items[0];
    const billed = await billing(bought.subscriptionId!);
    expect(billed.methodId).toBe(method.id);
    expect(billed.reference).toBe(billed.method.processor_reference);
    // The processor's reference for the card never leaves the daemon.
    expect(listed.text).not.toContain(billed.reference);

    const once = await createProduct(merchant, { name: 'E-book' });
    const single = await purchase(daemon(), merchant, once.id);
    expect((await merchant.api.get(`/v1/customers/${single.customerId}/payment-methods`)).json.items).toEqual([]);
  });

  it('a returning customer’s second subscription keeps its own card; the first card stays the default', async () => {
    const merchant = await createMerchant(daemon());
    const first = await subscribe(merchant);
    const email = (await merchant.api.get(`/v1/customers/${first.customerId}`)).json.email;
    daemon().clock.advance(1000);
    const second = await subscribe(merchant, { customer_email: email });
    expect(second.customerId).toBe(first.customerId);
    const items = (await merchant.api.get(`/v1/customers/${first.customerId}/payment-methods`)).json.items;
    expect(items.map((item: { is_default: boolean }) => item.is_default)).toEqual([false, true]);
    expect((await billing(second.subscriptionId!)).methodId).toBe(items[0].id);
    expect((await billing(first.subscriptionId!)).methodId).toBe(items[1].id);
  });

  it('is listed by external id too, and only to those who may read the customer', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    expect(
      (await merchant.api.call('PATCH', `/v1/customers/${bought.customerId}`, { body: { external_id: 'ext-7' } }))
        .status,
    ).toBe(200);
    const byExternal = await merchant.api.get('/v1/customers/external/ext-7/payment-methods');
    expect(byExternal.status, byExternal.text).toBe(200);
    expect(byExternal.json.items).toHaveLength(1);

    const stranger = await createMerchant(daemon());
    const hidden = await stranger.api.get(`/v1/customers/${bought.customerId}/payment-methods`);
    expect(hidden.status).toBe(404);
    expect(hidden.json.error).toBe('ResourceNotFound');
    expect((await merchant.api.get('/v1/customers/external/nobody/payment-methods')).status).toBe(404);
    const reader = await createMerchant(daemon(), { scopes: ['customers:read'] });
    expect((await reader.api.get(`/v1/customers/${bought.customerId}/payment-methods`)).status).toBe(404);
    const productsOnly = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await productsOnly.api.get(`/v1/customers/${bought.customerId}/payment-methods`)).status).toBe(403);
  });
});

describe('the customer portal’s payment methods', () => {
  it('adds a card, makes it the default with PATCH customers/me, and moves the live subscription onto it', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const client = await portalFor(merchant, bought.customerId);
    const first = (await client.get('/v1/customer-portal/customers/me/payment-methods')).json.items[0];
    expect(first).not.toHaveProperty('is_default');
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBe(first.id);

    daemon().clock.advance(1000);
    const added = await add(client, 'tok_mastercard');
    expect(added.status, added.text).toBe(201);
    expect(added.json).toEqual({
      status: 'succeeded',
      payment_method: {
        id: expect.any(String),
        created_at: expect.any(String),
        modified_at: null,
        processor: 'stripe',
        customer_id: bought.customerId,
        type: 'card',
        method_metadata: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2034, wallet: null },
      },
    });
    const second = added.json.payment_method;
    // Not asked to be the default: the subscription still bills the first card.
    expect((await billing(bought.subscriptionId!)).methodId).toBe(first.id);
    const listed = (await client.get('/v1/customer-portal/customers/me/payment-methods')).json;
    expect(listed.items.map((item: { id: string }) => item.id)).toEqual([second.id, first.id]);

    const patched = await client.call('PATCH', '/v1/customer-portal/customers/me', {
      body: { default_payment_method_id: second.id },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.default_payment_method_id).toBe(second.id);
    const billed = await billing(bought.subscriptionId!);
    expect(billed.methodId).toBe(second.id);
    expect(billed.reference).toBe(billed.method.processor_reference);
    const merchantView = (await merchant.api.get(`/v1/customers/${bought.customerId}/payment-methods`)).json.items;
    expect(merchantView.map((item: { id: string; is_default: boolean }) => [item.id, item.is_default])).toEqual([
      [second.id, true],
      [first.id, false],
    ]);
  });

  it('set_default on add makes the new card the default at once', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const client = await portalFor(merchant, bought.customerId);
    const added = await add(client, 'tok_chargeCustomerFail', true);
    expect(added.status, added.text).toBe(201);
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBe(
      added.json.payment_method.id,
    );
    expect((await billing(bought.subscriptionId!)).methodId).toBe(added.json.payment_method.id);
  });

  it('a customer’s first card becomes their default even without set_default', async () => {
    const merchant = await createMerchant(daemon());
    const once = await createProduct(merchant, { name: 'E-book' });
    const bought = await purchase(daemon(), merchant, once.id);
    const client = await portalFor(merchant, bought.customerId);
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBeNull();
    const added = await add(client, 'tok_visa');
    expect(added.status, added.text).toBe(201);
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBe(
      added.json.payment_method.id,
    );
  });

  it('refuses cards the processor declines, with Polar’s 400, and writes nothing', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const client = await portalFor(merchant, bought.customerId);
    for (const [token, message] of [
      ['tok_chargeDeclined', 'Your card was declined.'],
      ['tok_chargeDeclinedInsufficientFunds', 'Your card has insufficient funds.'],
      ['tok_chargeDeclinedLostCard', 'it has been reported lost'],
      ['tok_nonsense', 'Unknown test card token "tok_nonsense".'],
    ] as const) {
      const refused = await add(client, token, true);
      expect(refused.status, token).toBe(400);
      expect(refused.json.error).toBe('PaymentMethodSetupFailed');
      expect(refused.json.detail).toContain(message);
    }
    expect((await client.get('/v1/customer-portal/customers/me/payment-methods')).json.items).toHaveLength(1);
  });

  it('answers bad input with 422 in FastAPI’s shape', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const client = await portalFor(merchant, bought.customerId);
    const path = '/v1/customer-portal/customers/me/payment-methods';
    const missing = await client.post(path, { confirmation_token_id: 'tok_visa', set_default: true });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['body', 'return_url']);
    expect(
      (await client.post(path, { confirmation_token_id: '', set_default: true, return_url: RETURN_URL })).status,
    ).toBe(422);
    const confirm = await client.post(`${path}/confirm`, { setup_intent_id: 'seti_1', set_default: true });
    expect(confirm.status).toBe(422);
    expect(confirm.json.detail[0]).toMatchObject({ loc: ['body', 'setup_intent_id'], msg: 'Invalid setup_intent_id.' });

    const toNull = await client.call('PATCH', '/v1/customer-portal/customers/me', {
      body: { default_payment_method_id: null },
    });
    expect(toNull.status).toBe(422);
    expect(toNull.json.detail[0].loc).toEqual(['body', 'default_payment_method_id']);
    const notUuid = await client.call('PATCH', '/v1/customer-portal/customers/me', {
      body: { default_payment_method_id: 'card' },
    });
    expect(notUuid.status).toBe(422);

    // Another customer's card is not found, whichever way it is named.
    const other = await subscribe(merchant);
    const theirs = (await merchant.api.get(`/v1/customers/${other.customerId}/payment-methods`)).json.items[0];
    const foreign = await client.call('PATCH', '/v1/customer-portal/customers/me', {
      body: {
        default_payment_method_id: theirs.id,
        billing_name: 'Changed',
      },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.json.detail[0]).toMatchObject({ msg: 'Payment method not found.' });
    expect((await client.get('/v1/customer-portal/customers/me')).json.billing_name).not.toBe('Changed');
    expect((await client.call('DELETE', `${path}/${theirs.id}`)).status).toBe(404);
    expect((await client.call('DELETE', `${path}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await merchant.api.get(`/v1/customers/${other.customerId}/payment-methods`)).json.items).toHaveLength(1);

    const anonymous = new TestClient(daemon().url);
    expect((await anonymous.get(path)).status).toBe(401);
    expect(
      (await new TestClient(daemon().url, { headers: { authorization: `Bearer ${merchant.token}` } }).get(path)).status,
    ).toBe(401);
  });

  it('deleting the card a live subscription bills moves it to another card, or is refused when there is none', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const client = await portalFor(merchant, bought.customerId);
    const path = '/v1/customer-portal/customers/me/payment-methods';
    const only = (await client.get(path)).json.items[0];
    const refused = await client.call('DELETE', `${path}/${only.id}`);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: 'PaymentMethodInUseByActiveSubscription',
      detail: expect.stringContaining('Cannot delete payment method'),
    });
    expect((await client.get(path)).json.items).toHaveLength(1);

    daemon().clock.advance(1000);
    const spare = (await add(client, 'tok_mastercard')).json.payment_method;
    const deleted = await client.call('DELETE', `${path}/${only.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await client.get(path)).json.items.map((item: { id: string }) => item.id)).toEqual([spare.id]);
    // The deleted card was the default: the card the subscription moved to takes its place.
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBe(spare.id);
    const billed = await billing(bought.subscriptionId!);
    expect(billed.methodId).toBe(spare.id);
    expect(billed.reference).toBe(billed.method.processor_reference);
    expect((await client.call('DELETE', `${path}/${only.id}`)).status).toBe(404);
  });

  it('deletes a card no live subscription bills once the subscription has ended', async () => {
    const merchant = await createMerchant(daemon());
    const bought = await subscribe(merchant);
    const revoked = await merchant.api.call('DELETE', `/v1/subscriptions/${bought.subscriptionId}`);
    expect(revoked.status, revoked.text).toBe(200);
    const client = await portalFor(merchant, bought.customerId);
    const path = '/v1/customer-portal/customers/me/payment-methods';
    const only = (await client.get(path)).json.items[0];
    expect((await client.call('DELETE', `${path}/${only.id}`)).status).toBe(204);
    expect((await client.get(path)).json.items).toEqual([]);
    expect((await client.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBeNull();
  });
});
