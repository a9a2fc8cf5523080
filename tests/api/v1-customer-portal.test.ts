import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

function portal(token: string): TestClient {
  return new TestClient(daemon().url, { headers: { authorization: `Bearer ${token}` } });
}

async function sessionFor(merchant: Awaited<ReturnType<typeof createMerchant>>, customerId: string): Promise<string> {
  const created = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
  expect(created.status, created.text).toBe(201);
  return created.json.token as string;
}

describe('customer portal: orders, subscriptions, benefit grants', () => {
  it('shows a customer their own orders and subscriptions in Polar’s customer shapes', async () => {
    const merchant = await createMerchant(daemon());
    const once = await createProduct(merchant, { name: 'E-book' });
    const monthly = await createProduct(merchant, { name: 'Club', recurring_interval: 'month' });
    const bought = await purchase(daemon(), merchant, once.id, { metadata: { secret: 'merchant-only' } });
    const token = await sessionFor(merchant, bought.customerId);
    // The same customer subscribes too (found again by e-mail).
    const email = (await merchant.api.get(`/v1/customers/${bought.customerId}`)).json.email;
    daemon().clock.advance(1000);
    const subscribed = await purchase(daemon(), merchant, monthly.id, { customer_email: email });
    expect(subscribed.customerId).toBe(bought.customerId);

    const client = portal(token);
    const orders = await client.get('/v1/customer-portal/orders/');
    expect(orders.status, orders.text).toBe(200);
    expect(orders.json.pagination).toEqual({ total_count: 2, max_page: 1 });
    const [latest, first] = orders.json.items;
    expect(latest).toMatchObject({
      id: subscribed.order.id,
      billing_reason: 'subscription_create',
      product: { id: monthly.id, organization: { id: merchant.organization.id } },
      subscription: { id: subscribed.subscriptionId },
    });
    expect(first).toMatchObject({
      id: bought.order.id,
      status: 'paid',
      product: {
        name: 'E-book',
        prices: [expect.objectContaining({ id: once.prices[0]!.id })],
        benefits: [],
        medias: [],
      },
    });
    expect(first).not.toHaveProperty('metadata');
    expect(first).not.toHaveProperty('customer');
    expect(first.product.organization.customer_portal_settings).toEqual({
      usage: { show: true },
      subscription: { update_seats: true, update_plan: true },
      customer: { allow_email_change: true },
    });
    expect(
      (await client.get('/v1/customer-portal/orders/?product_billing_type=recurring')).json.items.map(
        (o: { id: string }) => o.id,
      ),
    ).toEqual([subscribed.order.id]);
    expect((await client.get(`/v1/customer-portal/orders/${bought.order.id}`)).json.id).toBe(bought.order.id);

    const subscriptions = await client.get('/v1/customer-portal/subscriptions/');
    expect(subscriptions.json.items).toHaveLength(1);
    expect(subscriptions.json.items[0]).toMatchObject({
      id: subscribed.subscriptionId,
      status: 'active',
      product: { id: monthly.id },
      prices: [expect.any(Object)],
      meters: [],
      pending_update: null,
    });
    expect(subscriptions.json.items[0]).not.toHaveProperty('customer');
    expect((await client.get('/v1/customer-portal/subscriptions/?active=false')).json.items).toEqual([]);

    const grants = await client.get('/v1/customer-portal/benefit-grants/');
    expect(grants.json).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it('lets a customer cancel, give a reason and uncancel, with the merchant’s events', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const { customerId, subscriptionId } = await purchase(daemon(), merchant, product.id);
    const client = portal(await sessionFor(merchant, customerId));
    const path = `/v1/customer-portal/subscriptions/${subscriptionId}`;

    const canceled = await client.call('DELETE', path);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json).toMatchObject({ cancel_at_period_end: true, status: 'active' });
    expect((await client.call('DELETE', path)).json.error).toBe('AlreadyCanceledSubscription');
    const reason = await client.call('PATCH', path, {
      body: { cancellation_reason: 'unused', cancellation_comment: 'Never opened it' },
    });
    expect(reason.json).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: 'unused',
      customer_cancellation_comment: 'Never opened it',
    });
    const uncanceled = await client.call('PATCH', path, { body: { cancel_at_period_end: false } });
    expect(uncanceled.json).toMatchObject({ cancel_at_period_end: false, customer_cancellation_reason: null });
    const again = await client.call('PATCH', path, {
      body: { cancel_at_period_end: true, cancellation_reason: 'too_expensive' },
    });
    expect(again.json).toMatchObject({ cancel_at_period_end: true, customer_cancellation_reason: 'too_expensive' });
    const types = (
      await daemon().core.db('outbox_events').where({ organization_id: merchant.organization.id }).orderBy('id')
    ).map((row) => row.type);
    expect(types.filter((type) => type === 'subscription.canceled')).toHaveLength(2);
    expect(types).toContain('subscription.uncanceled');
    expect((await client.call('PATCH', path, { body: { cancel_at_period_end: 'yes' } })).status).toBe(422);
    expect((await client.call('PATCH', path, { body: { customer_cancellation_reason: 'unused' } })).status).toBe(422);
  });

  it('shows a customer nothing of other customers and refuses other tokens', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const alice = await purchase(daemon(), merchant, product.id);
    const bob = await purchase(daemon(), merchant, product.id);
    const asBob = portal(await sessionFor(merchant, bob.customerId));
    expect((await asBob.get('/v1/customer-portal/orders/')).json.items.map((o: { id: string }) => o.id)).toEqual([
      bob.order.id,
    ]);
    for (const response of [
      await asBob.get(`/v1/customer-portal/orders/${alice.order.id}`),
      await asBob.get(`/v1/customer-portal/subscriptions/${alice.subscriptionId}`),
      await asBob.call('DELETE', `/v1/customer-portal/subscriptions/${alice.subscriptionId}`),
      await asBob.call('PATCH', `/v1/customer-portal/subscriptions/${alice.subscriptionId}`, {
        body: { cancel_at_period_end: true },
      }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.json.error).toBe('ResourceNotFound');
    }
    expect((await merchant.api.get(`/v1/subscriptions/${alice.subscriptionId}`)).json.cancel_at_period_end).toBe(false);

    // The checkout's own customer session token works in the portal right away.
    expect(
      (await portal(alice.customerSessionToken).get('/v1/customer-portal/subscriptions/')).json.items.map(
        (s: { id: string }) => s.id,
      ),
    ).toEqual([alice.subscriptionId]);
    for (const client of [new TestClient(daemon().url), portal('till_cst_unknown'), merchant.api]) {
      const response = await client.get('/v1/customer-portal/orders/');
      expect(response.status).toBe(401);
    }
    daemon().clock.advance(2 * 60 * 60 * 1000);
    expect((await asBob.get('/v1/customer-portal/orders/')).status).toBe(401);
  });
});
