import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createProduct } from '../helpers/catalog.js';
import { purchase } from '../helpers/purchases.js';
import { ALL_SCOPES, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();
const SCOPES = [...ALL_SCOPES, 'metrics:read'];

async function product(merchant: Merchant, amount: number, recurring: 'month' | 'year' | null) {
  return createProduct(merchant, {
    recurring_interval: recurring,
    prices: [{ amount_type: 'fixed', price_amount: amount, price_currency: 'usd' }],
  });
}

async function metrics(merchant: Merchant, query: string) {
  const response = await merchant.api.get(`/v1/metrics/?${query}`);
  expect(response.status, response.text).toBe(200);
  return response.json;
}

describe('GET /v1/metrics/', () => {
  it('answers a known history: purchases, a refund, subscriptions and a revocation, exact to the cent', async () => {
    daemon().clock.set(new Date('2026-11-21T12:00:00.000Z'));
    const merchant = await createMerchant(daemon(), { scopes: SCOPES });
    const oneTime = await product(merchant, 1000, null);
    const monthly = await product(merchant, 2000, 'month');
    const yearly = await product(merchant, 12_050, 'year');
    const bought = await purchase(daemon(), merchant, oneTime.id);
    const month = await purchase(daemon(), merchant, monthly.id);
    await purchase(daemon(), merchant, yearly.id);
    const refund = await merchant.api.post('/v1/refunds/', {
      order_id: bought.order.id,
      amount: 400,
      reason: 'customer_request',
    });
    expect(refund.status, refund.text).toBe(201);

    daemon().clock.set(new Date('2026-11-22T10:00:00.000Z'));
    expect((await merchant.api.call('DELETE', `/v1/subscriptions/${month.subscriptionId}`)).status).toBe(200);

    const answer = await metrics(merchant, 'start_date=2026-11-21&end_date=2026-11-23&interval=day');
    expect(answer.periods.map((period: { timestamp: string }) => period.timestamp)).toEqual([
      '2026-11-21T00:00:00.000Z',
      '2026-11-22T00:00:00.000Z',
      '2026-11-23T00:00:00.000Z',
    ]);
    const [first, second, third] = answer.periods;
    // 12050 a year is 1004.1666… a month: 1004 to the cent.
    expect(first).toMatchObject({
      orders: 3,
      revenue: 15_050,
      net_revenue: 14_650,
      one_time_products: 1,
      one_time_products_revenue: 1000,
      one_time_products_net_revenue: 600,
      new_subscriptions: 2,
      new_subscriptions_revenue: 14_050,
      renewed_subscriptions: 0,
      active_subscriptions: 2,
      monthly_recurring_revenue: 3004,
      committed_monthly_recurring_revenue: 3004,
      annual_recurring_revenue: 36_048,
      checkouts: 3,
      succeeded_checkouts: 3,
      checkouts_conversion: 1,
      average_order_value: 5017,
      cumulative_revenue: 15_050,
      churned_subscriptions: 0,
    });
    expect(second).toMatchObject({
      orders: 0,
      revenue: 0,
      active_subscriptions: 1,
      monthly_recurring_revenue: 1004,
      canceled_subscriptions: 1,
      churned_subscriptions: 1,
      churn_rate: 0.5,
      cumulative_revenue: 15_050,
    });
    expect(third).toMatchObject({ active_subscriptions: 1, monthly_recurring_revenue: 1004, churned_subscriptions: 0 });
    expect(answer.totals).toMatchObject({
      orders: 3,
      revenue: 15_050,
      net_revenue: 14_650,
      active_subscriptions: 1,
      monthly_recurring_revenue: 1004,
      churned_subscriptions: 1,
      checkouts_conversion: 1,
    });
    expect(answer.metrics.monthly_recurring_revenue).toEqual({
      slug: 'monthly_recurring_revenue',
      display_name: 'Monthly Recurring Revenue',
      type: 'currency',
    });
    expect(answer.metrics.churn_rate.type).toBe('percentage');

    const oneTimeOnly = await metrics(
      merchant,
      'start_date=2026-11-21&end_date=2026-11-21&interval=day&billing_type=one_time',
    );
    expect(oneTimeOnly.totals).toMatchObject({ orders: 1, revenue: 1000, net_revenue: 600, active_subscriptions: 0 });
    const byProduct = await metrics(
      merchant,
      `start_date=2026-11-21&end_date=2026-11-22&interval=day&product_id=${yearly.id}`,
    );
    expect(byProduct.totals).toMatchObject({ orders: 1, revenue: 12_050, monthly_recurring_revenue: 1004 });
    const byCustomer = await metrics(
      merchant,
      `start_date=2026-11-21&end_date=2026-11-22&interval=day&customer_id=${month.customerId}`,
    );
    expect(byCustomer.totals).toMatchObject({
      orders: 1,
      revenue: 2000,
      active_subscriptions: 0,
      churned_subscriptions: 1,
    });
    const selected = await metrics(merchant, 'start_date=2026-11-21&end_date=2026-11-21&interval=day&metrics=revenue');
    expect(Object.keys(selected.metrics)).toEqual(['revenue']);
    expect(Object.keys(selected.periods[0]).sort()).toEqual(['revenue', 'timestamp']);
  });

  it('cuts days at the Europe/Paris midnight', async () => {
    daemon().clock.set(new Date('2026-11-25T23:30:00.000Z'));
    const merchant = await createMerchant(daemon(), { scopes: SCOPES });
    const oneTime = await product(merchant, 700, null);
    await purchase(daemon(), merchant, oneTime.id);
    const base = 'start_date=2026-11-25&end_date=2026-11-26&interval=day';
    const utc = await metrics(merchant, base);
    expect(utc.periods.map((p: { orders: number }) => p.orders)).toEqual([1, 0]);
    const paris = await metrics(merchant, `${base}&timezone=Europe/Paris`);
    expect(paris.periods.map((p: { timestamp: string }) => p.timestamp)).toEqual([
      '2026-11-24T23:00:00.000Z',
      '2026-11-25T23:00:00.000Z',
    ]);
    expect(paris.periods.map((p: { orders: number }) => p.orders)).toEqual([0, 1]);
    // Summer time: the Paris day begins at 22:00 UTC.
    const summer = await metrics(
      merchant,
      'start_date=2026-07-01&end_date=2026-07-01&interval=day&timezone=Europe/Paris',
    );
    expect(summer.periods[0].timestamp).toBe('2026-06-30T22:00:00.000Z');
  });

  it('refuses ranges beyond Polar’s limits and bad input with 422, and serves the limits', async () => {
    const merchant = await createMerchant(daemon(), { scopes: SCOPES });
    const tooLong = await merchant.api.get('/v1/metrics/?start_date=2025-01-01&end_date=2026-01-03&interval=day');
    expect(tooLong.status).toBe(422);
    expect(tooLong.json.detail[0]).toMatchObject({
      loc: ['query'],
      msg: 'The interval is too big. Try to change the interval or reduce the date range.',
    });
    expect(
      (await merchant.api.get('/v1/metrics/?start_date=2025-01-01&end_date=2025-01-09&interval=hour')).status,
    ).toBe(422);
    expect(
      (await merchant.api.get('/v1/metrics/?start_date=2025-01-01&end_date=2025-01-08&interval=hour')).status,
    ).toBe(200);
    const backwards = await merchant.api.get('/v1/metrics/?start_date=2025-02-01&end_date=2025-01-01&interval=day');
    expect(backwards.status).toBe(422);
    expect(backwards.json.detail[0].loc).toEqual(['query', 'end_date']);
    for (const query of [
      'end_date=2025-01-01&interval=day',
      'start_date=2025-02-30&end_date=2025-03-01&interval=day',
      'start_date=2025-01-01&end_date=2025-01-02&interval=minute',
      'start_date=2025-01-01&end_date=2025-01-02&interval=day&timezone=Mars/Olympus',
      'start_date=2025-01-01&end_date=2025-01-02&interval=day&metrics=nope',
      'start_date=2025-01-01&end_date=2025-01-02&interval=day&product_id=nope',
      'start_date=2025-01-01&end_date=2025-01-02&interval=day&billing_type=free',
    ]) {
      const response = await merchant.api.get(`/v1/metrics/?${query}`);
      expect(response.status, query).toBe(422);
      expect(Array.isArray(response.json.detail), query).toBe(true);
    }
    const limits = await merchant.api.get('/v1/metrics/limits');
    expect(limits.status).toBe(200);
    expect(limits.json).toEqual({
      min_date: '2023-01-01',
      intervals: {
        hour: { min_days: 0, max_days: 7 },
        day: { min_days: 0, max_days: 366 },
        week: { min_days: 14, max_days: 365 },
        month: { min_days: 60, max_days: 1460 },
        year: { min_days: 366, max_days: 3650 },
      },
    });
    const noScope = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await noScope.api.get('/v1/metrics/limits')).status).toBe(403);
  });
});
