import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { paidOrder, purchase } from '../helpers/purchases.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function eventTypes(merchant: Merchant, since = ''): Promise<string[]> {
  const rows = await daemon()
    .core.db('outbox_events')
    .where({ organization_id: merchant.organization.id })
    .where('id', '>', since)
    .orderBy('id');
  return rows.map((row) => String(row.type));
}

async function lastEventId(merchant: Merchant): Promise<string> {
  const row = await daemon()
    .core.db('outbox_events')
    .where({ organization_id: merchant.organization.id })
    .orderBy('id', 'desc')
    .first();
  return row ? String(row.id) : '';
}

describe('orders', () => {
  it('lists orders with Polar’s filters, gets one, and corrects its invoice details', async () => {
    const merchant = await createMerchant(daemon());
    const once = await paidOrder(daemon(), merchant, 1500);
    daemon().clock.advance(1000);
    const monthly = await paidOrder(daemon(), merchant, 900, 'month');

    const all = await merchant.api.get('/v1/orders/');
    expect(all.status).toBe(200);
    expect(all.json.pagination).toEqual({ total_count: 2, max_page: 1 });
    expect(all.json.items.map((o: { id: string }) => o.id)).toEqual([monthly.order.id, once.order.id]);

    const byQuery = async (query: string) =>
      (await merchant.api.get(`/v1/orders/?${query}`)).json.items.map((o: { id: string }) => o.id);
    expect(await byQuery('product_billing_type=one_time')).toEqual([once.order.id]);
    expect(await byQuery('product_billing_type=recurring')).toEqual([monthly.order.id]);
    expect(await byQuery(`product_id=${once.product.id}`)).toEqual([once.order.id]);
    expect(await byQuery(`customer_id=${monthly.customerId}`)).toEqual([monthly.order.id]);
    expect(await byQuery(`subscription_id=${monthly.subscriptionId}`)).toEqual([monthly.order.id]);
    expect(await byQuery('billing_reason=subscription_create')).toEqual([monthly.order.id]);
    expect(await byQuery('status=paid&status=refunded')).toHaveLength(2);
    expect(await byQuery('status=refunded')).toEqual([]);
    expect(await byQuery('sorting=created_at')).toEqual([once.order.id, monthly.order.id]);
    expect(await byQuery('limit=1&page=2')).toEqual([once.order.id]);

    const one = await merchant.api.get(`/v1/orders/${once.order.id}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      status: 'paid',
      paid: true,
      billing_reason: 'purchase',
      total_amount: 1500,
      refunded_amount: 0,
      product: { id: once.product.id },
      subscription: null,
    });
    expect(one.json.items).toHaveLength(1);

    const since = await lastEventId(merchant);
    const updated = await merchant.api.call('PATCH', `/v1/orders/${once.order.id}`, {
      body: {
        billing_name: 'ACME Ltd',
        billing_address: { line1: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' },
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      billing_name: 'ACME Ltd',
      billing_address: { line1: '1 Main St', country: 'DE' },
    });
    expect(updated.json.modified_at).not.toBeNull();
    expect(await eventTypes(merchant, since)).toEqual(['order.updated']);
    // The country decided the tax: it cannot change once set.
    const moved = await merchant.api.call('PATCH', `/v1/orders/${once.order.id}`, {
      body: { billing_address: { line1: '1 Rue', city: 'Paris', country: 'FR' } },
    });
    expect(moved.status).toBe(422);
    expect(moved.json.detail[0].loc).toEqual(['body', 'billing_address', 'country']);
  });

  it('keeps orders to their organization: 404 across tenants, 403 for read-only members, 422 for bad input', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const { order } = await paidOrder(daemon(), a);
    expect((await b.api.get(`/v1/orders/${order.id}`)).status).toBe(404);
    expect((await b.api.call('PATCH', `/v1/orders/${order.id}`, { body: { billing_name: 'x' } })).status).toBe(404);
    expect((await b.api.get('/v1/orders/')).json.pagination.total_count).toBe(0);
    expect((await b.api.get(`/v1/orders/?organization_id=${a.organization.id}`)).json.items).toEqual([]);
    expect((await a.api.get('/v1/orders/not-a-uuid')).status).toBe(404);

    const reader = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), a.organization.id, reader.user.id, 'member');
    const member = bearerClient(daemon(), reader.token);
    expect((await member.get(`/v1/orders/${order.id}`)).status).toBe(200);
    const refused = await member.call('PATCH', `/v1/orders/${order.id}`, { body: { billing_name: 'x' } });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');

    const bad = await a.api.get('/v1/orders/?status=lost&sorting=color');
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'status'],
        ['query', 'sorting'],
      ]),
    );
    const extra = await a.api.call('PATCH', `/v1/orders/${order.id}`, { body: { total_amount: 1 } });
    expect(extra.status).toBe(422);
    const scopeless = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await scopeless.api.get('/v1/orders/')).status).toBe(403);
  });
});

describe('subscriptions', () => {
  it('lists subscriptions with filters, including active and metadata', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const first = await purchase(daemon(), merchant, product.id, { metadata: { reference_id: 'team-1' } });
    const second = await purchase(daemon(), merchant, product.id, { metadata: { reference_id: 'team-2' } });
    const ids = async (query: string) =>
      (await merchant.api.get(`/v1/subscriptions/?${query}`)).json.items.map((s: { id: string }) => s.id);
    expect(await ids('')).toHaveLength(2);
    expect(await ids('metadata[reference_id]=team-1')).toEqual([first.subscriptionId]);
    expect(await ids(`customer_id=${second.customerId}`)).toEqual([second.subscriptionId]);
    expect(await ids('active=true')).toHaveLength(2);
    await merchant.api.call('DELETE', `/v1/subscriptions/${first.subscriptionId}`);
    expect(await ids('active=true')).toEqual([second.subscriptionId]);
    expect(await ids('active=false')).toEqual([first.subscriptionId]);
    expect(await ids('status=canceled')).toEqual([first.subscriptionId]);
    const got = await merchant.api.get(`/v1/subscriptions/${second.subscriptionId}`);
    expect(got.json).toMatchObject({
      status: 'active',
      amount: 1000,
      recurring_interval: 'month',
      product: { id: product.id },
      prices: [{ id: product.prices[0]!.id }],
      pending_update: null,
    });
  });

  it('cancels at the period end, uncancels and revokes with Polar’s events and errors', async () => {
    const merchant = await createMerchant(daemon());
    const { subscriptionId, customerId } = await paidOrder(daemon(), merchant, 1200, 'month');
    const path = `/v1/subscriptions/${subscriptionId}`;
    const before = (await merchant.api.get(path)).json;

    daemon().clock.advance(60_000);
    let since = await lastEventId(merchant);
    const canceled = await merchant.api.call('PATCH', path, {
      body: {
        cancel_at_period_end: true,
        customer_cancellation_reason: 'too_expensive',
        customer_cancellation_comment: 'Pricey',
      },
    });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      ends_at: before.current_period_end,
      ended_at: null,
      customer_cancellation_reason: 'too_expensive',
      customer_cancellation_comment: 'Pricey',
    });
    expect(canceled.json.canceled_at).toBe(daemon().clock.now().toISOString());
    expect(await eventTypes(merchant, since)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'customer.state_changed',
    ]);
    const state = (await merchant.api.get(`/v1/customers/${customerId}/state`)).json;
    expect(state.active_subscriptions).toEqual([
      expect.objectContaining({
        id: subscriptionId,
        cancel_at_period_end: true,
        ends_at: before.current_period_end,
        meters: [],
      }),
    ]);

    const again = await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: true } });
    expect(again.status).toBe(403);
    expect(again.json.error).toBe('AlreadyCanceledSubscription');

    since = await lastEventId(merchant);
    const uncanceled = await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: false } });
    expect(uncanceled.status).toBe(200);
    expect(uncanceled.json).toMatchObject({
      cancel_at_period_end: false,
      canceled_at: null,
      ends_at: null,
      customer_cancellation_reason: null,
      customer_cancellation_comment: null,
    });
    expect(await eventTypes(merchant, since)).toEqual([
      'subscription.updated',
      'subscription.uncanceled',
      'customer.state_changed',
    ]);
    expect((await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: false } })).status).toBe(400);

    daemon().clock.advance(60_000);
    since = await lastEventId(merchant);
    const revoked = await merchant.api.call('DELETE', path);
    expect(revoked.status).toBe(200);
    const now = daemon().clock.now().toISOString();
    expect(revoked.json).toMatchObject({ status: 'canceled', ended_at: now, ends_at: now, canceled_at: now });
    expect(await eventTypes(merchant, since)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
      'customer.state_changed',
    ]);
    expect((await merchant.api.get(`/v1/customers/${customerId}/state`)).json.active_subscriptions).toEqual([]);

    const revokeAgain = await merchant.api.call('DELETE', path);
    expect(revokeAgain.status).toBe(403);
    expect(revokeAgain.json.error).toBe('AlreadyCanceledSubscription');
    expect((await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: true } })).json.error).toBe(
      'AlreadyCanceledSubscription',
    );
    const uncancelEnded = await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: false } });
    expect(uncancelEnded.status).toBe(410);
  });

  it('revokes with PATCH {revoke: true} after a cancel, without a second subscription.canceled', async () => {
    const merchant = await createMerchant(daemon());
    const { subscriptionId } = await paidOrder(daemon(), merchant, 500, 'year');
    const path = `/v1/subscriptions/${subscriptionId}`;
    expect((await merchant.api.call('PATCH', path, { body: { cancel_at_period_end: true } })).status).toBe(200);
    const since = await lastEventId(merchant);
    const revoked = await merchant.api.call('PATCH', path, {
      body: { revoke: true, customer_cancellation_reason: 'unused' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ status: 'canceled', customer_cancellation_reason: 'unused' });
    expect(await eventTypes(merchant, since)).toEqual([
      'subscription.updated',
      'subscription.revoked',
      'customer.state_changed',
    ]);
  });

  it('refuses other tenants, read-only members and bad input', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const { subscriptionId } = await paidOrder(daemon(), a, 700, 'month');
    const path = `/v1/subscriptions/${subscriptionId}`;
    for (const response of [
      await b.api.get(path),
      await b.api.call('PATCH', path, { body: { cancel_at_period_end: true } }),
      await b.api.call('DELETE', path),
    ]) {
      expect(response.status).toBe(404);
      expect(response.json.error).toBe('ResourceNotFound');
    }
    const reader = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), a.organization.id, reader.user.id, 'member');
    const member = bearerClient(daemon(), reader.token);
    expect((await member.get(path)).status).toBe(200);
    expect((await member.call('PATCH', path, { body: { cancel_at_period_end: true } })).status).toBe(403);
    expect((await member.call('DELETE', path)).status).toBe(403);

    expect((await a.api.call('PATCH', path, { body: { cancel_at_period_end: 'soon' } })).status).toBe(422);
    expect(
      (await a.api.call('PATCH', path, { body: { cancel_at_period_end: true, customer_cancellation_reason: 'bored' } }))
        .status,
    ).toBe(422);
    expect((await a.api.call('PATCH', path, { body: { product_id: subscriptionId } })).status).toBe(422);
    expect((await a.api.get('/v1/subscriptions/?active=maybe')).status).toBe(422);
    expect((await a.api.get(path)).json.cancel_at_period_end).toBe(false);
  });
});
