import { Polar } from '@polar-sh/sdk';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, SECOND } from '../../src/core/kernel/clock.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../helpers/webhook-receiver.js';
import { advanceAndDrain, createEndpoint } from '../helpers/webhooks.js';

/**
 * Metered billing through a year on the simulated clock: a plan of 10.00 a month plus tokens at 0.35¢ each (capped
 * at 20.00 a period), with a meter_credit benefit of 100 tokens a month that rolls over. Every cycle order must carry
 * exactly round(max(0, used − credited) × 0.35), capped; credits roll over; a cancel mid-period bills the rest in a
 * final order; the webhooks and the meters' shapes pass the SDK's strict schemas.
 */

const UNIT = 35; // hundredths of a cent: '0.35'
const CAP = 2000;
const MONTHLY_CREDIT = 100;

/** The expected charge of `billable` units (quarters are exact in binary, so the meter's float sums are exact). */
function charge(billable: number): number {
  // billable × 0.35, rounded half away from zero, in integers: quarters × 35 / 400.
  const quarters = Math.round(billable * 4);
  const exact = Math.floor((quarters * UNIT * 2 + 400) / 800);
  return Math.min(exact, CAP);
}

let daemon: TestDaemon;
let receiver: Receiver;
beforeAll(async () => {
  daemon = await startRenewalDaemon(new Date('2027-01-15T09:00:00.000Z'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await daemon.stop();
  await receiver.close();
});

/** A delivery parsed by the SDK's validateEvent, signed again at the wall clock's time (the test clock is far off). */
function parsed(delivery: ReceivedDelivery, secret: string): { type: string; data: any } {
  const now = new Date();
  const signature = new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(delivery.id, now, delivery.body);
  return validateEvent(
    delivery.body,
    {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
    secret,
  ) as { type: string; data: any };
}

async function setUp(merchant: Merchant) {
  const meter = await merchant.api.post('/v1/meters/', {
    name: 'Tokens',
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'completion' }] },
    aggregation: { func: 'sum', property: 'tokens' },
  });
  expect(meter.status, meter.text).toBe(201);
  const product = await merchant.api.post('/v1/products/', {
    name: 'Pro',
    recurring_interval: 'month',
    prices: [
      { amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' },
      {
        amount_type: 'metered_unit',
        unit_amount: '0.35',
        cap_amount: CAP,
        meter_id: meter.json.id,
        price_currency: 'usd',
      },
    ],
  });
  expect(product.status, product.text).toBe(201);
  const benefit = await merchant.api.post('/v1/benefits/', {
    type: 'meter_credit',
    description: '100 tokens a month',
    properties: { units: MONTHLY_CREDIT, rollover: true, meter_id: meter.json.id },
  });
  expect(benefit.status, benefit.text).toBe(201);
  const attached = await merchant.api.post(`/v1/products/${product.json.id}/benefits`, { benefits: [benefit.json.id] });
  expect(attached.status, attached.text).toBe(200);
  return { meterId: meter.json.id as string, productId: product.json.id as string };
}

async function use(merchant: Merchant, customerId: string, amounts: number[], timestamp?: string) {
  const response = await merchant.api.post('/v1/events/ingest', {
    events: amounts.map((tokens) => ({
      name: 'completion',
      customer_id: customerId,
      metadata: { tokens },
      ...(timestamp ? { timestamp } : {}),
    })),
  });
  expect(response.status, response.text).toBe(200);
}

async function customerMeter(merchant: Merchant, customerId: string, meterId: string) {
  const response = await merchant.api.get('/v1/customer-meters/', {
    query: { customer_id: customerId, meter_id: meterId },
  });
  expect(response.status, response.text).toBe(200);
  return response.json.items[0] as { consumed_units: number; credited_units: number; balance: number };
}

async function items(orderId: string) {
  return (await daemon.core.db('order_items').where({ order_id: orderId }).orderBy('position')) as Array<{
    label: string;
    amount: number;
    product_price_id: string | null;
    proration: unknown;
  }>;
}

describe('metered billing', () => {
  it('bills a year of usage less rolled-over credits, exactly, and a cancel mid-period in a final order', async () => {
    const merchant = await createMerchant(daemon);
    const endpoint = await createEndpoint(merchant, receiver.url, [
      'order.created',
      'subscription.updated',
      'customer.state_changed',
      'benefit_grant.cycled',
    ]);
    const { meterId, productId } = await setUp(merchant);
    const { subscriptionId, customerId } = await subscribe(daemon, merchant, productId);
    await daemon.core.scheduler.drain();
    const meteredPriceId = (await merchant.api.get(`/v1/products/${productId}`)).json.prices.find(
      (price: { amount_type: string }) => price.amount_type === 'metered_unit',
    ).id as string;

    // Granted: 100 tokens credited at once.
    expect(await customerMeter(merchant, customerId, meterId)).toMatchObject({
      consumed_units: 0,
      credited_units: MONTHLY_CREDIT,
      balance: MONTHLY_CREDIT,
    });

    // Month by month: under the credit (the rest rolls over), over it, far over (capped), nothing at all.
    const usage: number[][] = [
      [12.5, 30.25],
      [80, 60.75, 0.25],
      [250.5],
      [],
      [7000],
      [33.75, 33.75, 33.75],
      [100],
      [0.25],
      [199.5, 0.5],
      [12],
      [64.25],
    ];
    let credited = MONTHLY_CREDIT;
    const expected: number[] = [];
    for (const [month, amounts] of usage.entries()) {
      // The third month also gets an event stamped a year back: usage counts when it is ingested.
      await use(merchant, customerId, amounts);
      if (month === 2) await use(merchant, customerId, [9.5], '2026-01-01T00:00:00.000Z');
      const used = amounts.reduce((sum, value) => sum + value, 0) + (month === 2 ? 9.5 : 0);
      const meter = await customerMeter(merchant, customerId, meterId);
      expect(meter).toMatchObject({ consumed_units: used, credited_units: credited, balance: credited - used });
      const subscription = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json;
      expect(subscription.meters).toEqual([
        expect.objectContaining({
          meter_id: meterId,
          consumed_units: used,
          credited_units: credited,
          amount: charge(Math.max(0, used - credited)),
        }),
      ]);
      await moveTo(daemon, new Date(subscription.current_period_end));
      expected.push(charge(Math.max(0, used - credited)));
      // The meter starts again; the leftover credit rolls over with the month's new credit.
      credited = Math.max(0, Math.floor(credited - used)) + MONTHLY_CREDIT;
      expect(await customerMeter(merchant, customerId, meterId)).toMatchObject({
        consumed_units: 0,
        credited_units: credited,
      });
    }

    const { orders } = await ledger(daemon, subscriptionId);
    const cycles = orders.filter((order) => order.billing_reason === 'subscription_cycle');
    expect(cycles).toHaveLength(usage.length);
    for (const [index, order] of cycles.entries()) {
      expect(order.status).toBe('paid');
      const lines = await items(order.id);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ amount: 1000 });
      expect(lines[1]).toMatchObject({ amount: expected[index], product_price_id: meteredPriceId });
      expect(order.subtotal_amount).toBe(1000 + expected[index]!);
    }
    // Spot checks of the arithmetic itself: 42.75 tokens under 100 credited is free; 7000 − 100 is capped;
    // (100 − 0.25 … ) the months over their credit pay 0.35¢ a token, half a cent rounded away from zero.
    expect(expected[0]).toBe(0);
    expect(expected[4]).toBe(CAP);
    expect(expected.some((amount) => amount > 0 && amount < CAP)).toBe(true);

    // Twelfth month: some usage, then a cancel mid-period. The period end bills the rest in a final order with the
    // usage line alone, and the credit is taken back (the grant is revoked).
    await use(merchant, customerId, [350.5]);
    daemon.clock.advance(10 * DAY);
    const canceled = await merchant.api.call('PATCH', `/v1/subscriptions/${subscriptionId}`, {
      body: { cancel_at_period_end: true },
    });
    expect(canceled.status, canceled.text).toBe(200);
    await use(merchant, customerId, [20]);
    const end = new Date(canceled.json.current_period_end);
    await moveTo(daemon, end);
    const after = await ledger(daemon, subscriptionId);
    const final = after.orders.at(-1)!;
    expect(after.orders).toHaveLength(orders.length + 1);
    expect(final).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid' });
    const finalLines = await items(final.id);
    expect(finalLines).toEqual([
      expect.objectContaining({ amount: charge(370.5 - credited), product_price_id: meteredPriceId }),
    ]);
    expect((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json).toMatchObject({ status: 'canceled' });
    const meterAfter = await customerMeter(merchant, customerId, meterId);
    expect(meterAfter).toMatchObject({ consumed_units: 0, credited_units: 0 });
    // Nothing more is billed later.
    await moveTo(daemon, new Date(end.getTime() + 60 * DAY));
    expect((await ledger(daemon, subscriptionId)).orders).toHaveLength(orders.length + 1);

    // The system events, as Polar names them: a reset per bill, a credit per grant and cycle, one negative on revoke.
    const system = await merchant.api.get('/v1/events/', {
      query: { customer_id: customerId, source: 'system', limit: '100' },
    });
    expect(system.status, system.text).toBe(200);
    const names = (system.json.items as Array<{ name: string; metadata: any }>).map((event) => event.name);
    expect(names.filter((name) => name === 'meter.reset')).toHaveLength(usage.length + 1);
    const credits = (system.json.items as Array<{ name: string; metadata: any }>).filter(
      (event) => event.name === 'meter.credited',
    );
    expect(credits.filter((event) => event.metadata.units < 0)).toEqual([
      expect.objectContaining({ metadata: { meter_id: meterId, units: -MONTHLY_CREDIT, rollover: false } }),
    ]);
    expect(credits.filter((event) => event.metadata.rollover === true).length).toBeGreaterThan(0);

    // The webhooks parse with the SDK's validateEvent; customer.state_changed carries active_meters and the
    // subscription's meters.
    await advanceAndDrain(daemon, 2 * SECOND, 3);
    const states = receiver.of('customer.state_changed').map((delivery) => parsed(delivery, endpoint.secret));
    expect(states.length).toBeGreaterThan(0);
    const withMeters = states.filter((event) => event.data.activeMeters.length > 0);
    expect(withMeters.length).toBeGreaterThan(0);
    expect(withMeters[0]!.data.activeMeters[0]).toMatchObject({ meterId });
    expect(
      states.some((event) =>
        event.data.activeSubscriptions.some((subscription: any) => subscription.meters.length === 1),
      ),
    ).toBe(true);
    const updates = receiver.of('subscription.updated').map((delivery) => parsed(delivery, endpoint.secret));
    expect(updates.some((event) => event.data.meters.length === 1 && event.data.meters[0].meter.id === meterId)).toBe(
      true,
    );
    const created = receiver.of('order.created').map((delivery) => parsed(delivery, endpoint.secret));
    expect(created.length).toBe(after.orders.length);
    const cycled = receiver.of('benefit_grant.cycled').map((delivery) => parsed(delivery, endpoint.secret));
    expect(cycled.length).toBe(usage.length);
    expect(cycled[0]!.data.properties).toMatchObject({ lastCreditedMeterId: meterId, lastCreditedUnits: 100 });
  });

  it('a revoke mid-period bills the usage so far at once; the SDK parses meters strictly', async () => {
    const merchant = await createMerchant(daemon);
    const { meterId, productId } = await setUp(merchant);
    const { subscriptionId, customerId } = await subscribe(daemon, merchant, productId);
    await daemon.core.scheduler.drain();
    await use(merchant, customerId, [300.25, 0.5]);
    const sdk = merchant.sdk;

    const state = await sdk.customers.getState({ id: customerId });
    expect(state.activeMeters).toEqual([
      expect.objectContaining({ meterId, consumedUnits: 300.75, creditedUnits: 100, balance: -200.75 }),
    ]);
    expect(state.activeSubscriptions[0]!.meters).toEqual([
      expect.objectContaining({ meterId, consumedUnits: 300.75, creditedUnits: 100, amount: charge(200.75) }),
    ]);
    const subscription = await sdk.subscriptions.get({ id: subscriptionId });
    expect(subscription.meters).toEqual([
      expect.objectContaining({ meterId, amount: charge(200.75), meter: expect.objectContaining({ id: meterId }) }),
    ]);
    expect(subscription.prices.map((price) => price.amountType).sort()).toEqual(['fixed', 'metered_unit']);
    const listed = await sdk.customerMeters.list({ customerId });
    const [meter] = listed.result.items;
    expect(meter).toMatchObject({ consumedUnits: 300.75, creditedUnits: 100, balance: -200.75 });
    expect((await sdk.customerMeters.get({ id: meter!.id })).creditedUnits).toBe(100);

    // The customer's own view (CustomerSubscriptionMeter: the meter named).
    const session = await sdk.customerSessions.create({ customerId });
    const portal = new Polar({ accessToken: session.token, serverURL: daemon.url });
    const own = await portal.customerPortal.subscriptions.get(
      { customerSession: session.token },
      { id: subscriptionId },
    );
    expect(own.meters).toEqual([
      expect.objectContaining({ meterId, amount: charge(200.75), meter: expect.objectContaining({ name: 'Tokens' }) }),
    ]);

    const revoked = await merchant.api.call('DELETE', `/v1/subscriptions/${subscriptionId}`);
    expect(revoked.status, revoked.text).toBe(200);
    await daemon.core.scheduler.drain();
    const { orders } = await ledger(daemon, subscriptionId);
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({ billing_reason: 'subscription_cycle', subtotal_amount: charge(200.75) });
    // Billed before the revocation took the credit back: 100 credited tokens were not charged.
    expect(charge(200.75)).toBe(70);
    expect((await sdk.customers.getState({ id: customerId })).activeMeters).toEqual([
      expect.objectContaining({ meterId, consumedUnits: 0, creditedUnits: 0 }),
    ]);
  });
});
