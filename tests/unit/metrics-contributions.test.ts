import { describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  monthlyAmount,
  orderDeltas,
  sameContributions,
  subscriptionDeltas,
  type SubscriptionFacts,
} from '../../src/core/metrics/contributions.js';
import { periodBoundaries } from '../../src/core/metrics/periods.js';

const T0 = new Date('2026-01-10T10:15:00.000Z');
const hour = (at: Date) => Math.floor(at.getTime() / HOUR_MS);
const later = (hours: number) => new Date(T0.getTime() + hours * HOUR_MS);

function subscription(fields: Partial<SubscriptionFacts>): SubscriptionFacts {
  return {
    id: 's',
    organizationId: 'o',
    customerId: 'c',
    productId: 'p',
    status: 'active',
    amount: 1000,
    currency: 'usd',
    recurringInterval: 'month',
    recurringIntervalCount: 1,
    startedAt: T0,
    trialEnd: null,
    canceledAt: null,
    endedAt: null,
    ...fields,
  };
}

/** The MRR change each hour, from a subscription's rows. */
function mrrByHour(facts: SubscriptionFacts): Record<number, number> {
  const out: Record<number, number> = {};
  for (const row of subscriptionDeltas(facts))
    if (row.values.monthly_recurring_revenue) out[row.hour - hour(T0)] = row.values.monthly_recurring_revenue;
  return out;
}

describe('metrics contributions', () => {
  it('turns a price into MRR to the cent: a year ÷ 12, a week × 52/12, a day × 365/12, every n intervals ÷ n', () => {
    expect(monthlyAmount(12_050, 'year', 1)).toBe(1004);
    expect(monthlyAmount(1000, 'week', 1)).toBe(4333);
    expect(monthlyAmount(100, 'day', 1)).toBe(3042);
    expect(monthlyAmount(3000, 'month', 3)).toBe(1000);
    expect(monthlyAmount(1001, 'month', 2)).toBe(501);
  });

  it('counts a trial in active subscriptions but not in MRR until it is paid', () => {
    const trialEnd = later(72);
    const trialing = subscriptionDeltas(subscription({ status: 'trialing', trialEnd }));
    expect(trialing.some((row) => row.values.monthly_recurring_revenue)).toBe(false);
    expect(trialing.find((row) => row.hour === hour(T0))?.values.active_subscriptions).toBe(1);
    expect(mrrByHour(subscription({ status: 'active', trialEnd }))).toEqual({ 72: 1000 });
    // Ended within its trial: never paid, never MRR.
    expect(mrrByHour(subscription({ status: 'canceled', trialEnd, endedAt: later(5), canceledAt: later(5) }))).toEqual(
      {},
    );
  });

  it('keeps a past-due subscription in MRR until it ends, and takes a scheduled cancel out of committed MRR only', () => {
    expect(mrrByHour(subscription({ status: 'past_due' }))).toEqual({ 0: 1000 });
    const canceling = subscriptionDeltas(subscription({ canceledAt: later(3) }));
    const at3 = canceling.find((row) => row.hour === hour(later(3)))!.values;
    expect(at3).toEqual({
      committed_subscriptions: -1,
      committed_monthly_recurring_revenue: -1000,
      canceled_subscriptions: 1,
    });
    const ended = subscriptionDeltas(subscription({ status: 'canceled', canceledAt: later(3), endedAt: later(700) }));
    expect(ended.find((row) => row.hour === hour(later(700)))!.values).toEqual({
      active_subscriptions: -1,
      churned_subscriptions: 1,
      monthly_recurring_revenue: -1000,
    });
  });

  it('tells a change that leaves a subscription’s contributions as they were from one that moves them', () => {
    const active = subscription({ startedAt: T0 });
    expect(sameContributions(active, { ...active })).toBe(true);
    expect(sameContributions(active, { ...active, amount: 2500 })).toBe(false);
    expect(sameContributions(active, { ...active, canceledAt: later(5) })).toBe(false);
    const trialing = subscription({ startedAt: T0, status: 'trialing', trialEnd: later(24) });
    expect(sameContributions(trialing, { ...trialing, status: 'active' })).toBe(false);
    // past_due pays on until it ends, as active does.
    expect(sameContributions(active, { ...active, status: 'past_due' })).toBe(true);
  });

  it('counts paid orders only, with refunds lowering net revenue in the order’s own hour', () => {
    const order = {
      id: 'o1',
      organizationId: 'o',
      customerId: 'c',
      productId: 'p',
      subscriptionId: null,
      status: 'partially_refunded',
      billingReason: 'purchase',
      netAmount: 1000,
      refundedAmount: 250,
      currency: 'usd',
      createdAt: T0,
    };
    expect(orderDeltas(order)[0]).toMatchObject({
      hour: hour(T0),
      billingType: 'one_time',
      values: { orders: 1, revenue: 1000, net_revenue: 750, one_time_products: 1, one_time_products_net_revenue: 750 },
    });
    expect(orderDeltas({ ...order, status: 'pending' })).toEqual([]);
    expect(orderDeltas({ ...order, billingReason: 'subscription_cycle', subscriptionId: 's' })[0]).toMatchObject({
      billingType: 'recurring',
      values: { renewed_subscriptions: 1, renewed_subscriptions_revenue: 1000 },
    });
  });

  it('bounds periods on the local calendar, across a change of clocks', () => {
    const days = periodBoundaries('2026-03-28', '2026-03-30', 'day', 'Europe/Paris');
    expect(days.starts.map((at) => new Date(at).toISOString())).toEqual([
      '2026-03-27T23:00:00.000Z',
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
    ]);
    expect(new Date(days.end).toISOString()).toBe('2026-03-30T22:00:00.000Z');
    const weeks = periodBoundaries('2026-11-25', '2026-12-02', 'week', 'UTC');
    expect(weeks.starts.map((at) => new Date(at).toISOString().slice(0, 10))).toEqual(['2026-11-23', '2026-11-30']);
    const months = periodBoundaries('2026-01-31', '2026-03-01', 'month', 'America/New_York');
    expect(months.starts.map((at) => new Date(at).toISOString())).toEqual([
      '2026-01-01T05:00:00.000Z',
      '2026-02-01T05:00:00.000Z',
      '2026-03-01T05:00:00.000Z',
    ]);
    expect(periodBoundaries('2026-01-01', '2026-01-01', 'hour', 'Asia/Kolkata').starts).toHaveLength(24);
  });
});
