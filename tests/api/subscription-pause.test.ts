import { Subscription$inboundSchema } from '@polar-sh/sdk/models/components/subscription.js';
import { CustomerSubscription$inboundSchema } from '@polar-sh/sdk/models/components/customersubscription.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { outboxEvents } from '../helpers/products.js';
import { ordersOf, patch, plan, simulateCycle, subscribe, unbilledTotal } from '../helpers/subscription-changes.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const DAY = 86_400_000;
const APRIL = new Date('2027-04-01T12:00:00.000Z');

async function setup(token = 'tok_visa') {
  daemon().clock.set(APRIL);
  const merchant = await createMerchant(daemon());
  const basic = await plan(merchant, 'Basic', 1000);
  const subscription = await subscribe(daemon(), merchant, basic.id, token);
  return { merchant, basic, subscription };
}

function change(merchant: Merchant, id: string, body: Record<string, unknown>) {
  return patch(merchant.api, `/v1/subscriptions/${id}`, body);
}

async function eventTypes(merchant: Merchant, subscriptionId: string): Promise<string[]> {
  const rows = await daemon()
    .core.db('outbox_events')
    .where({ organization_id: merchant.organization.id })
    .orderBy('id', 'asc');
  return rows
    .filter((row) => String(row.type).startsWith('subscription.') && String(row.payload).includes(subscriptionId))
    .map((row) => String(row.type));
}

async function jobs(kind: string, subjectId: string): Promise<string[]> {
  const rows = await daemon().core.db('scheduled_jobs').where({ kind, subject_id: subjectId });
  return rows.map((row) => new Date(row.due_at).toISOString());
}

describe('pause and resume', () => {
  it('pauses now: paused, no renewal, subscription.paused; resume charges a new period at once', async () => {
    const { merchant, subscription } = await setup();
    daemon().clock.advance(10 * DAY);
    const pausedAt = daemon().clock.now().toISOString();
    const paused = await change(merchant, subscription.id, { pause_at_period_end: false });
    expect(paused.status).toBe(200);
    const parsed = Subscription$inboundSchema.parse(paused.json);
    expect(parsed.status).toBe('paused');
    expect(paused.json).toMatchObject({ paused_at: pausedAt, resumes_at: null, pause_at_period_end: false });
    expect((await eventTypes(merchant, subscription.id)).slice(-2)).toEqual([
      'subscription.updated',
      'subscription.paused',
    ]);
    expect(await jobs('subscription.cycle', subscription.id)).toEqual([]);
    // The customer's state no longer counts it.
    const states = await outboxEvents(daemon(), merchant.organization.id, 'customer.state_changed');
    expect(states.at(-1).active_subscriptions).toEqual([]);
    // Paused twice is refused; so is a plan change while paused.
    expect((await change(merchant, subscription.id, { pause_at_period_end: false })).status).toBe(400);
    const pro = await plan(merchant, 'Pro', 3000);
    expect((await change(merchant, subscription.id, { product_id: pro.id })).json.error).toBe('InactiveSubscription');

    daemon().clock.advance(40 * DAY);
    const now = daemon().clock.now();
    const resumed = await change(merchant, subscription.id, { resume: true });
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({
      status: 'active',
      paused_at: null,
      current_period_start: now.toISOString(),
      current_period_end: '2027-06-21T12:00:00.000Z',
    });
    expect((await eventTypes(merchant, subscription.id)).slice(-2)).toEqual([
      'subscription.updated',
      'subscription.resumed',
    ]);
    const orders = await ordersOf(merchant, subscription.id);
    expect(orders.map((o) => [o.billing_reason, o.total_amount, o.status])).toEqual(
      expect.arrayContaining([['subscription_cycle', 1000, 'paid']]),
    );
    expect(await jobs('subscription.cycle', subscription.id)).toEqual(['2027-06-21T12:00:00.000Z']);
    expect((await change(merchant, subscription.id, { resume: true })).status).toBe(400);
    // The next cycle counts its periods from the resume.
    daemon().clock.set(new Date('2027-06-21T12:00:00.000Z'));
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 1000, items: 0 });
    expect((await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json.current_period_end).toBe(
      '2027-07-21T12:00:00.000Z',
    );
  });

  it('a declined resume charge is a 402 and the subscription stays paused', async () => {
    const { merchant, subscription } = await setup('tok_chargeCustomerFail');
    await change(merchant, subscription.id, { pause_at_period_end: false });
    const before = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    const resumed = await change(merchant, subscription.id, { resume: true });
    expect(resumed.status).toBe(402);
    expect(resumed.json.error).toBe('PaymentFailed');
    expect((await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json).toEqual(before);
    expect((await ordersOf(merchant, subscription.id)).length).toBe(1);
  });

  it('pauses at the period end through the cycle hook, and resumes on its own at resumes_at', async () => {
    const { merchant, subscription } = await setup();
    const early = await change(merchant, subscription.id, {
      pause_at_period_end: true,
      resumes_at: '2027-04-15T12:00:00.000Z',
    });
    expect(early.status).toBe(422);
    expect(early.json.detail[0].loc).toEqual(['body', 'resumes_at']);
    const set = await change(merchant, subscription.id, {
      pause_at_period_end: true,
      resumes_at: '2027-06-01T12:00:00.000Z',
    });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      status: 'active',
      pause_at_period_end: true,
      resumes_at: '2027-06-01T12:00:00.000Z',
    });

    daemon().clock.set(new Date(set.json.current_period_end));
    expect(await simulateCycle(daemon(), subscription.id)).toBeNull();
    const paused = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    expect(paused).toMatchObject({
      status: 'paused',
      pause_at_period_end: false,
      paused_at: set.json.current_period_end,
    });
    expect((await eventTypes(merchant, subscription.id)).slice(-2)).toEqual([
      'subscription.updated',
      'subscription.paused',
    ]);
    expect(await jobs('subscription.resume', subscription.id)).toEqual(['2027-06-01T12:00:00.000Z']);

    daemon().clock.set(new Date('2027-06-01T12:00:00.000Z'));
    await daemon().core.scheduler.drain();
    const resumed = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    // The cycle, due at once, billed the resumed period: one paid cycle order, the period now 06-01 to 07-01.
    expect(resumed).toMatchObject({
      status: 'active',
      resumes_at: null,
      current_period_start: '2027-06-01T12:00:00.000Z',
      current_period_end: '2027-07-01T12:00:00.000Z',
    });
    expect(await jobs('subscription.cycle', subscription.id)).toEqual(['2027-07-01T12:00:00.000Z']);
    expect(await eventTypes(merchant, subscription.id)).toContain('subscription.resumed');
    const cycled = await merchant.api.get(
      `/v1/orders/?subscription_id=${subscription.id}&billing_reason=subscription_cycle`,
    );
    expect(
      cycled.json.items.map((order: { total_amount: number; status: string }) => [order.total_amount, order.status]),
    ).toEqual([[1000, 'paid']]);
  });

  it('pause_at_period_end false takes back a pause set for the period end; a cancel replaces it', async () => {
    const { merchant, subscription } = await setup();
    await change(merchant, subscription.id, { pause_at_period_end: true });
    const undone = await change(merchant, subscription.id, { pause_at_period_end: false });
    expect(undone.json).toMatchObject({ status: 'active', pause_at_period_end: false });
    await change(merchant, subscription.id, { pause_at_period_end: true });
    const canceled = await change(merchant, subscription.id, { cancel_at_period_end: true });
    expect(canceled.json).toMatchObject({ cancel_at_period_end: true, pause_at_period_end: false });
    expect((await change(merchant, subscription.id, { pause_at_period_end: true })).json.error).toBe(
      'AlreadyCanceledSubscription',
    );
  });

  it('a paused subscription can be revoked', async () => {
    const { merchant, subscription } = await setup();
    await change(merchant, subscription.id, { pause_at_period_end: false });
    const revoked = await change(merchant, subscription.id, { revoke: true });
    expect(revoked.status).toBe(200);
    expect(revoked.json.status).toBe('canceled');
    expect((await eventTypes(merchant, subscription.id)).slice(-3)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ]);
  });
});

describe('the customer portal', () => {
  function portal(token: string): TestClient {
    return new TestClient(daemon().url, { headers: { authorization: `Bearer ${token}` } });
  }

  async function sessionFor(merchant: Merchant, customerId: string): Promise<string> {
    const created = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
    expect(created.status, created.text).toBe(201);
    return created.json.token as string;
  }

  it('changes plan when the organization allows it, with its default proration', async () => {
    const { merchant, subscription } = await setup();
    const pro = await plan(merchant, 'Pro', 3000);
    daemon().clock.advance(10 * DAY);
    const client = portal(await sessionFor(merchant, subscription.customerId));
    const path = `/v1/customer-portal/subscriptions/${subscription.id}`;
    const changed = await patch(client, path, { product_id: pro.id });
    expect(changed.status).toBe(200);
    expect(CustomerSubscription$inboundSchema.parse(changed.json).productId).toBe(pro.id);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(1333);
    // The portal cannot choose the proration.
    expect((await patch(client, path, { product_id: pro.id, proration_behavior: 'invoice' })).status).toBe(422);

    const refused = await patch(merchant.api, `/v1/organizations/${merchant.organization.id}`, {
      customer_portal_settings: { subscription: { update_plan: false } },
    });
    expect(refused.status).toBe(200);
    const team = await plan(merchant, 'Team', 5000);
    const denied = await patch(client, path, { product_id: team.id });
    expect(denied.status).toBe(403);
    expect(denied.json.error).toBe('NotPermitted');
    expect((await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json.product_id).toBe(pro.id);
    // Cancelling still goes through.
    expect((await patch(client, path, { cancel_at_period_end: true })).json.cancel_at_period_end).toBe(true);
  });

  it('pauses and resumes only when the organization turns pausing on', async () => {
    const { merchant, subscription } = await setup();
    const client = portal(subscription.customerSessionToken);
    const path = `/v1/customer-portal/subscriptions/${subscription.id}`;
    const denied = await patch(client, path, { pause_at_period_end: false });
    expect(denied.status).toBe(403);
    expect(denied.json.error).toBe('PauseResumeNotAllowed');
    await patch(merchant.api, `/v1/organizations/${merchant.organization.id}`, {
      customer_portal_settings: { subscription: { pause: true } },
    });
    expect((await patch(client, path, { pause_at_period_end: false })).json.status).toBe('paused');
    expect((await patch(client, path, { resume: true })).json.status).toBe('active');
    // Someone else's subscription is not found.
    const other = await subscribe(daemon(), merchant, (await plan(merchant, 'Other', 500)).id);
    expect((await patch(client, `/v1/customer-portal/subscriptions/${other.id}`, { resume: true })).status).toBe(404);
  });
});
