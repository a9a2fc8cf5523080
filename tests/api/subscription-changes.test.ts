import { Subscription$inboundSchema } from '@polar-sh/sdk/models/components/subscription.js';
import { Order$inboundSchema } from '@polar-sh/sdk/models/components/order.js';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { outboxEvents } from '../helpers/products.js';
import {
  carriedCredit,
  ordersOf,
  patch,
  plan,
  simulateCycle,
  subscribe,
  unbilledTotal,
} from '../helpers/subscription-changes.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const DAY = 86_400_000;

// April has 30 days: 10 days in, ⅔ of the period is left.
const APRIL = new Date('2027-04-01T12:00:00.000Z');

async function setup(oldAmount = 1000, token = 'tok_visa') {
  daemon().clock.set(APRIL);
  const merchant = await createMerchant(daemon());
  const basic = await plan(merchant, 'Basic', oldAmount);
  const pro = await plan(merchant, 'Pro', 3000);
  const subscription = await subscribe(daemon(), merchant, basic.id, token);
  return { merchant, basic, pro, subscription };
}

function change(merchant: Merchant, id: string, body: Record<string, unknown>) {
  return patch(merchant.api, `/v1/subscriptions/${id}`, body);
}

async function types(merchant: Merchant, type: string) {
  return outboxEvents(daemon(), merchant.organization.id, type);
}

describe('plan changes', () => {
  it('prorate (an upgrade): the plan changes now; the credit and debit wait for the next cycle order', async () => {
    const { merchant, pro, subscription } = await setup();
    daemon().clock.advance(10 * DAY); // 20 of the period's 30 days left
    const response = await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'prorate' });
    expect(response.status).toBe(200);
    const parsed = Subscription$inboundSchema.parse(response.json);
    expect(parsed.productId).toBe(pro.id);
    expect(parsed.amount).toBe(3000);
    expect(parsed.pendingUpdate).toBeNull();
    // No order now: -⅔ of 1000 and +⅔ of 3000, rounded half away from zero.
    expect((await ordersOf(merchant, subscription.id)).map((o) => o.billing_reason)).toEqual(['subscription_create']);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(-667 + 2000);
    const updated = await types(merchant, 'subscription.updated');
    expect(updated.at(-1).product_id).toBe(pro.id);

    daemon().clock.advance(20 * DAY);
    const cycle = await simulateCycle(daemon(), subscription.id);
    expect(cycle).toEqual({ total: 3000 + 1333, items: 1333 });
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(0);
    // The entries are carried once: a second cycle bills only the plan.
    daemon().clock.advance(31 * DAY);
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 3000, items: 0 });
  });

  it('prorate (a downgrade): the credit exceeds the debit; the cycle carries what its order cannot take', async () => {
    const { merchant, basic, subscription } = await setup(3000);
    const cheaper = await plan(merchant, 'Lite', 600);
    daemon().clock.advance(10 * DAY);
    const response = await change(merchant, subscription.id, { product_id: cheaper.id, proration_behavior: 'prorate' });
    expect(response.status).toBe(200);
    expect(response.json.product_id).toBe(cheaper.id);
    expect(basic.id).not.toBe(cheaper.id);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(-2000 + 400);
    daemon().clock.advance(20 * DAY);
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 0, items: -1600 });
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(0);
    expect(await carriedCredit(daemon(), subscription.id)).toBe(1000);
    daemon().clock.advance(31 * DAY);
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 0, items: 0 });
    expect(await carriedCredit(daemon(), subscription.id)).toBe(400);
  });

  it('invoice (an upgrade): the difference is charged now in a paid subscription_update order', async () => {
    const { merchant, pro, subscription } = await setup();
    daemon().clock.advance(10 * DAY);
    const response = await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'invoice' });
    expect(response.status).toBe(200);
    expect(response.json.product_id).toBe(pro.id);
    const orders = await ordersOf(merchant, subscription.id);
    const update = orders.find((order) => order.billing_reason === 'subscription_update')!;
    expect(update.total_amount).toBe(1333);
    expect(update.status).toBe('paid');
    expect(update.items.map((item) => [item.amount, item.proration])).toEqual([
      [-667, true],
      [2000, true],
    ]);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(0);
    const created = await types(merchant, 'order.created');
    const paid = await types(merchant, 'order.paid');
    expect(created.find((order) => order.id === update.id).status).toBe('pending');
    const paidUpdate = paid.find((order) => order.id === update.id);
    expect(Order$inboundSchema.parse(paidUpdate).billingReason).toBe('subscription_update');
    const charges = await daemon()
      .core.db('payment_attempts')
      .where({ order_id: update.id, kind: 'charge', status: 'succeeded' });
    expect(charges.map((row) => Number(row.amount))).toEqual([1333]);
    daemon().clock.advance(20 * DAY);
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 3000, items: 0 });
  });

  it('invoice: the charge adds tax as at checkout (the buyer’s address, the organization’s rate)', async () => {
    daemon().clock.set(APRIL);
    const merchant = await createMerchant(daemon());
    expect(
      (await merchant.api.post('/v1/tax-rates/', { country: 'DE', basis_points: 1900, name: 'MwSt' })).status,
    ).toBe(201);
    const basic = await plan(merchant, 'Basic', 1000);
    const pro = await plan(merchant, 'Pro', 3000);
    const subscription = await subscribe(daemon(), merchant, basic.id, 'tok_visa', {
      customer_billing_address: { country: 'DE' },
    });
    expect(subscription.paid).toBe(1190);
    daemon().clock.advance(10 * DAY);
    expect(
      (await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'invoice' })).status,
    ).toBe(200);
    const update = (await ordersOf(merchant, subscription.id)).find((o) => o.billing_reason === 'subscription_update')!;
    // 19 % of 1333 is 253.27.
    expect(update).toMatchObject({ net_amount: 1333, tax_amount: 253, total_amount: 1586 });
    const charges = await daemon().core.db('payment_attempts').where({ order_id: update.id, status: 'succeeded' });
    expect(charges.map((row) => Number(row.amount))).toEqual([1586]);
  });

  it('invoice (a downgrade): a net credit charges nothing and waits for the next cycle order', async () => {
    const { merchant, subscription } = await setup(3000);
    const cheaper = await plan(merchant, 'Lite', 600);
    daemon().clock.advance(10 * DAY);
    const response = await change(merchant, subscription.id, { product_id: cheaper.id, proration_behavior: 'invoice' });
    expect(response.status).toBe(200);
    expect((await ordersOf(merchant, subscription.id)).length).toBe(1);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(-1600);
  });

  it('a declined invoice charge is a 402 and changes nothing', async () => {
    const { merchant, pro, subscription } = await setup(1000, 'tok_chargeCustomerFail');
    daemon().clock.advance(10 * DAY);
    const before = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    const eventsBefore = (await types(merchant, 'subscription.updated')).length;
    const response = await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'invoice' });
    expect(response.status).toBe(402);
    expect(response.json).toEqual({ error: 'PaymentFailed', detail: 'The payment failed: Your card was declined.' });
    expect((await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json).toEqual(before);
    expect((await ordersOf(merchant, subscription.id)).length).toBe(1);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(0);
    expect((await types(merchant, 'subscription.updated')).length).toBe(eventsBefore);
    const succeeded = await daemon()
      .core.db('payment_attempts')
      .where({ customer_id: subscription.customerId, kind: 'charge', status: 'succeeded' });
    expect(succeeded.length).toBe(1); // the checkout's charge only
  });

  it('a change of interval promotes prorate to invoice and restarts the period now', async () => {
    const { merchant, subscription } = await setup();
    const yearly = await plan(merchant, 'Yearly', 10_000, 'year');
    daemon().clock.advance(10 * DAY);
    const now = daemon().clock.now();
    const response = await change(merchant, subscription.id, { product_id: yearly.id, proration_behavior: 'prorate' });
    expect(response.status).toBe(200);
    expect(response.json.recurring_interval).toBe('year');
    expect(response.json.current_period_start).toBe(now.toISOString());
    expect(response.json.current_period_end).toBe('2028-04-11T12:00:00.000Z');
    const update = (await ordersOf(merchant, subscription.id)).find((o) => o.billing_reason === 'subscription_update')!;
    expect(update.total_amount).toBe(10_000 - 667);
    const jobs = await daemon()
      .core.db('scheduled_jobs')
      .where({ kind: 'subscription.cycle', subject_id: subscription.id });
    expect(jobs.map((job) => new Date(job.due_at).toISOString())).toEqual([response.json.current_period_end]);
    // The cycle counts the yearly periods from the change.
    daemon().clock.set(new Date('2028-04-11T12:00:00.000Z'));
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 10_000, items: 0 });
    const renewed = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    expect([renewed.current_period_start, renewed.current_period_end]).toEqual([
      '2028-04-11T12:00:00.000Z',
      '2029-04-11T12:00:00.000Z',
    ]);
  });

  it('a next_period change of interval: the cycle starts the new interval at the period end', async () => {
    const { merchant, subscription } = await setup();
    const yearly = await plan(merchant, 'Yearly', 10_000, 'year');
    daemon().clock.advance(10 * DAY);
    const set = await change(merchant, subscription.id, { product_id: yearly.id, proration_behavior: 'next_period' });
    expect(set.json.recurring_interval).toBe('month');
    daemon().clock.set(new Date('2027-05-01T12:00:00.000Z'));
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 10_000, items: 0 });
    const renewed = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    expect(renewed).toMatchObject({
      recurring_interval: 'year',
      current_period_start: '2027-05-01T12:00:00.000Z',
      current_period_end: '2028-05-01T12:00:00.000Z',
    });
  });

  it('a trialing subscription changes plan at once without proration', async () => {
    const { merchant, pro, subscription } = await setup();
    const trialEnd = new Date(daemon().clock.now().getTime() + 14 * DAY);
    await daemon()
      .core.db('subscriptions')
      .where({ id: subscription.id })
      .update({ status: 'trialing', trial_start: daemon().clock.now(), trial_end: trialEnd });
    daemon().clock.advance(3 * DAY);
    for (const behavior of ['invoice', 'prorate']) {
      const target = behavior === 'invoice' ? pro.id : (await plan(merchant, 'Team', 5000)).id;
      const response = await change(merchant, subscription.id, { product_id: target, proration_behavior: behavior });
      expect(response.status).toBe(200);
      expect(response.json.status).toBe('trialing');
      expect(response.json.product_id).toBe(target);
    }
    expect((await ordersOf(merchant, subscription.id)).length).toBe(1);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(0);
  });

  it('next_period: a pending update shown on the subscription, cleared by pending_update null, applied by the cycle', async () => {
    const { merchant, basic, pro, subscription } = await setup();
    daemon().clock.advance(5 * DAY);
    const set = await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'next_period' });
    expect(set.status).toBe(200);
    expect(set.json.product_id).toBe(basic.id);
    const parsed = Subscription$inboundSchema.parse(set.json);
    expect(parsed.pendingUpdate?.productId).toBe(pro.id);
    expect(parsed.pendingUpdate?.appliesAt.toISOString()).toBe(set.json.current_period_end);
    const cleared = await change(merchant, subscription.id, { pending_update: null });
    expect(cleared.status).toBe(200);
    expect(cleared.json.pending_update).toBeNull();
    // Nothing waiting: clearing again is a no-op.
    expect((await change(merchant, subscription.id, { pending_update: null })).json.pending_update).toBeNull();

    expect(
      (await change(merchant, subscription.id, { product_id: pro.id, proration_behavior: 'next_period' })).status,
    ).toBe(200);
    daemon().clock.advance(25 * DAY);
    expect(await simulateCycle(daemon(), subscription.id)).toEqual({ total: 3000, items: 0 });
    const after = (await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json;
    expect(after.product_id).toBe(pro.id);
    expect(after.amount).toBe(3000);
    expect(after.pending_update).toBeNull();
  });

  it('the organization default (prorate) applies when proration_behavior is left out; next_period can be the default', async () => {
    const { merchant, pro, subscription } = await setup();
    daemon().clock.advance(10 * DAY);
    expect((await change(merchant, subscription.id, { product_id: pro.id })).status).toBe(200);
    expect(await unbilledTotal(daemon(), subscription.id)).toBe(1333);
    const settings = await patch(merchant.api, `/v1/organizations/${merchant.organization.id}`, {
      subscription_settings: { proration_behavior: 'next_period' },
    });
    expect(settings.status).toBe(200);
    const team = await plan(merchant, 'Team', 5000);
    const response = await change(merchant, subscription.id, { product_id: team.id });
    expect(response.json.pending_update.product_id).toBe(team.id);
  });

  it('refuses what Polar refuses, and changes nothing', async () => {
    const { merchant, basic, subscription } = await setup();
    const other = await createMerchant(daemon());
    const foreign = await plan(other, 'Foreign', 1000);
    const oneTime = (
      await merchant.api.post('/v1/products/', {
        name: 'Once',
        prices: [{ amount_type: 'fixed', price_amount: 500, price_currency: 'usd' }],
      })
    ).json;
    const archived = await plan(merchant, 'Old', 2000);
    await patch(merchant.api, `/v1/products/${archived.id}`, { is_archived: true });
    const euro = await createProductIn(merchant, 'eur');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ product_id: foreign.id }, 422, 'Product does not exist.'],
      [{ product_id: oneTime.id }, 422, 'Product is not recurring.'],
      [{ product_id: archived.id }, 422, 'Product is archived.'],
      [{ product_id: basic.id }, 422, 'The subscription is already on this product.'],
      [{ product_id: euro }, 422, "Product has no fixed or free price in the subscription's currency (usd)."],
    ];
    for (const [body, status, msg] of cases) {
      const response = await change(merchant, subscription.id, body);
      expect(response.status).toBe(status);
      expect(response.json.detail[0]).toMatchObject({ loc: ['body', 'product_id'], msg });
    }
    const reset = await change(merchant, subscription.id, { product_id: foreign.id, proration_behavior: 'reset' });
    expect(reset.status).toBe(422);
    const pro = await plan(merchant, 'Pro', 3000);
    await change(merchant, subscription.id, { cancel_at_period_end: true });
    const canceled = await change(merchant, subscription.id, { product_id: pro.id });
    expect(canceled.status).toBe(403);
    expect(canceled.json.error).toBe('AlreadyCanceledSubscription');
    expect((await merchant.api.get(`/v1/subscriptions/${subscription.id}`)).json.product_id).toBe(basic.id);
  });
});

async function createProductIn(merchant: Merchant, currency: string): Promise<string> {
  const response = await merchant.api.post('/v1/products/', {
    name: `In ${currency}`,
    recurring_interval: 'month',
    prices: [{ amount_type: 'fixed', price_amount: 900, price_currency: currency }],
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.json.id;
}
