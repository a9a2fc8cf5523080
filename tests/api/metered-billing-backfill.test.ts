import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../src/core/database/index.js';
import { DAY } from '../../src/core/kernel/clock.js';
import { scheduleBackfillStep } from '../../src/core/meters/backfill.js';
import { metersRepository, type Meter } from '../../src/core/meters/repository.js';
import type { Aggregation, Filter } from '../../src/core/meters/schemas.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * A bill that falls due while a meter still counts older events in the background (its backfill): the bill must
 * charge every event of the period, and once the backfill is done nothing it counted is charged again. The daemon's
 * worker would run the backfill at once, so the meters are made here as POST /v1/meters makes them, with the
 * backfill's first step due on a later day the test moves the clock to.
 */

const COMPLETION: Filter = { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'completion' }] };
const TOKENS: Aggregation = { func: 'sum', property: 'tokens' };
const MODELS: Aggregation = { func: 'unique', property: 'model' };

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startRenewalDaemon(new Date('2027-03-10T09:00:00.000Z'));
});
afterAll(async () => {
  await daemon.stop();
});

/** A meter over the organization's events so far, as the meters service creates it, backfilled at `backfillAt`. */
async function backfillingMeter(merchant: Merchant, name: string, aggregation: Aggregation, backfillAt: Date) {
  const organizationId = merchant.organization.id;
  const id = await transaction(daemon.core.db, async (trx) => {
    const meters = metersRepository(trx);
    await meters.lockOrganization(organizationId, 'exclusive');
    const now = daemon.clock.now();
    const meter: Meter = {
      id: randomUUID(),
      organizationId,
      name,
      unit: 'scalar',
      customLabel: null,
      customMultiplier: null,
      filter: COMPLETION,
      aggregation,
      metadata: {},
      createdAt: now,
      modifiedAt: null,
      archivedAt: null,
      backfillTarget: await meters.lastEventSeq(organizationId),
      backfillCursor: 0,
    };
    await scheduleBackfillStep(trx, meter, backfillAt);
    await meters.insert(meter);
    return meter.id;
  });
  expect((await merchant.api.get(`/v1/meters/${id}`)).json.backfill_pending).toBe(true);
  return id;
}

async function ingest(merchant: Merchant, events: Array<Record<string, unknown>>) {
  const response = await merchant.api.post('/v1/events/ingest', { events });
  expect(response.status, response.text).toBe(200);
}

function completion(who: Record<string, string>, tokens: number, model: string) {
  return { name: 'completion', ...who, metadata: { tokens, model } };
}

/**
 * A customer with usage from before the meters exist: events sent by external id before the customer existed, then
 * by id, and one the meters do not count.
 */
async function customerWithHistory(merchant: Merchant) {
  const externalId = `late-${randomUUID()}`;
  await ingest(merchant, [
    completion({ external_customer_id: externalId }, 3, 'a'),
    completion({ external_customer_id: externalId }, 4, 'b'),
  ]);
  const email = uniqueEmail('backfill');
  const created = await merchant.api.post('/v1/customers/', { email, external_id: externalId });
  expect(created.status, created.text).toBe(201);
  const customerId = created.json.id as string;
  await ingest(merchant, [
    completion({ customer_id: customerId }, 5, 'a'),
    completion({ customer_id: customerId }, 6, 'c'),
    { name: 'other', customer_id: customerId, metadata: { tokens: 1000, model: 'z' } },
  ]);
  return { customerId, externalId, email };
}

/** A plan of 10.00 a month, 1¢ a token and 1.00 a distinct model. */
async function meteredPlan(merchant: Merchant, tokensId: string, modelsId: string) {
  const product = await merchant.api.post('/v1/products/', {
    name: 'Pro',
    recurring_interval: 'month',
    prices: [
      { amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' },
      { amount_type: 'metered_unit', unit_amount: '1', meter_id: tokensId, price_currency: 'usd' },
      { amount_type: 'metered_unit', unit_amount: '100', meter_id: modelsId, price_currency: 'usd' },
    ],
  });
  expect(product.status, product.text).toBe(201);
  return product.json.id as string;
}

async function lines(orderId: string) {
  const rows = (await daemon.core.db('order_items').where({ order_id: orderId }).orderBy('position')) as Array<{
    amount: number;
  }>;
  return rows.map((row) => row.amount);
}

async function consumed(merchant: Merchant, customerId: string, meterId: string) {
  const response = await merchant.api.get('/v1/customer-meters/', {
    query: { customer_id: customerId, meter_id: meterId },
  });
  expect(response.status, response.text).toBe(200);
  return (response.json.items[0]?.consumed_units as number | undefined) ?? 0;
}

describe('metered billing while a meter backfills', () => {
  it('a renewal bills the events the backfill has not reached; the backfill then counts none of them again', async () => {
    const merchant = await createMerchant(daemon);
    const start = daemon.clock.now();
    const backfillAt = new Date(start.getTime() + 45 * DAY);
    const { customerId, externalId, email } = await customerWithHistory(merchant);
    const tokensId = await backfillingMeter(merchant, 'Tokens', TOKENS, backfillAt);
    const modelsId = await backfillingMeter(merchant, 'Models', MODELS, backfillAt);
    const productId = await meteredPlan(merchant, tokensId, modelsId);
    const { subscriptionId } = await subscribe(daemon, merchant, productId, 'tok_visa', {
      customer_id: customerId,
      customer_email: email,
    });
    await daemon.core.scheduler.drain();
    // Counted by ingestion: the meters exist now (by external id, the customer's now too).
    await ingest(merchant, [
      completion({ customer_id: customerId }, 7, 'd'),
      completion({ external_customer_id: externalId }, 1, 'a'),
    ]);

    const periodEnd = new Date((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json.current_period_end);
    expect(periodEnd.getTime()).toBeLessThan(backfillAt.getTime());
    await moveTo(daemon, periodEnd);
    expect((await merchant.api.get(`/v1/meters/${tokensId}`)).json.backfill_pending).toBe(true);
    const first = (await ledger(daemon, subscriptionId)).orders.filter(
      (o) => o.billing_reason === 'subscription_cycle',
    );
    expect(first).toHaveLength(1);
    // 3 + 4 + 5 + 6 + 7 + 1 tokens; models a, b, c, d.
    expect(await lines(first[0]!.id)).toEqual([1000, 26, 400]);
    expect(await consumed(merchant, customerId, tokensId)).toBe(0);

    await ingest(merchant, [completion({ customer_id: customerId }, 2, 'a')]);
    await moveTo(daemon, backfillAt);
    expect((await merchant.api.get(`/v1/meters/${tokensId}`)).json.backfill_pending).toBe(false);
    expect((await merchant.api.get(`/v1/meters/${modelsId}`)).json.backfill_pending).toBe(false);
    expect(await consumed(merchant, customerId, tokensId)).toBe(2);
    expect(await consumed(merchant, customerId, modelsId)).toBe(1);
    // The quantity series is the backfill's: every event once, billed or not.
    const series = await merchant.api.get(`/v1/meters/${tokensId}/quantities`, {
      query: {
        start_timestamp: new Date(start.getTime() - DAY).toISOString(),
        end_timestamp: new Date(backfillAt.getTime() + DAY).toISOString(),
        interval: 'month',
      },
    });
    expect(series.status, series.text).toBe(200);
    expect(series.json.total).toBe(28);

    const secondEnd = new Date((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json.current_period_end);
    await moveTo(daemon, secondEnd);
    const cycles = (await ledger(daemon, subscriptionId)).orders.filter(
      (o) => o.billing_reason === 'subscription_cycle',
    );
    expect(cycles).toHaveLength(2);
    expect(await lines(cycles[1]!.id)).toEqual([1000, 2, 100]);
  });

  it('the final order of a revoke bills the events the backfill has not reached, and only once', async () => {
    const merchant = await createMerchant(daemon);
    const backfillAt = new Date(daemon.clock.now().getTime() + 10 * DAY);
    const { customerId, email } = await customerWithHistory(merchant);
    const tokensId = await backfillingMeter(merchant, 'Tokens', TOKENS, backfillAt);
    const modelsId = await backfillingMeter(merchant, 'Models', MODELS, backfillAt);
    const productId = await meteredPlan(merchant, tokensId, modelsId);
    const { subscriptionId } = await subscribe(daemon, merchant, productId, 'tok_visa', {
      customer_id: customerId,
      customer_email: email,
    });
    await daemon.core.scheduler.drain();

    const revoked = await merchant.api.call('DELETE', `/v1/subscriptions/${subscriptionId}`);
    expect(revoked.status, revoked.text).toBe(200);
    await daemon.core.scheduler.drain();
    const { orders } = await ledger(daemon, subscriptionId);
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({ billing_reason: 'subscription_cycle', subtotal_amount: 18 + 300 });
    expect(await lines(orders[1]!.id)).toEqual([18, 300]);

    await moveTo(daemon, backfillAt);
    expect((await merchant.api.get(`/v1/meters/${tokensId}`)).json.backfill_pending).toBe(false);
    expect(await consumed(merchant, customerId, tokensId)).toBe(0);
    expect(await consumed(merchant, customerId, modelsId)).toBe(0);
    expect((await ledger(daemon, subscriptionId)).orders).toHaveLength(2);
  });

  it('a meter_credit cycle reset rolls over only what the backfilled usage left', async () => {
    const merchant = await createMerchant(daemon);
    const backfillAt = new Date(daemon.clock.now().getTime() + 45 * DAY);
    const { customerId, email } = await customerWithHistory(merchant);
    const tokensId = await backfillingMeter(merchant, 'Tokens', TOKENS, backfillAt);
    const product = await merchant.api.post('/v1/products/', {
      name: 'Credits',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 1000, price_currency: 'usd' }],
    });
    expect(product.status, product.text).toBe(201);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'meter_credit',
      description: '100 tokens a month',
      properties: { units: 100, rollover: true, meter_id: tokensId },
    });
    expect(benefit.status, benefit.text).toBe(201);
    const attached = await merchant.api.post(`/v1/products/${product.json.id}/benefits`, {
      benefits: [benefit.json.id],
    });
    expect(attached.status, attached.text).toBe(200);
    const { subscriptionId } = await subscribe(daemon, merchant, product.json.id, 'tok_visa', {
      customer_id: customerId,
      customer_email: email,
    });
    await daemon.core.scheduler.drain();

    const periodEnd = new Date((await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json.current_period_end);
    await moveTo(daemon, periodEnd);
    const meter = await merchant.api.get('/v1/customer-meters/', {
      query: { customer_id: customerId, meter_id: tokensId },
    });
    // 100 credited less the 18 tokens used before the reset, rolled over, and the month's 100.
    expect(meter.json.items[0]).toMatchObject({ consumed_units: 0, credited_units: 182 });

    await moveTo(daemon, backfillAt);
    expect(await consumed(merchant, customerId, tokensId)).toBe(0);
  });
});
