import { describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { createPlan, ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';

interface SubscriptionView {
  status: string;
  current_period_start: string;
  current_period_end: string;
}

async function view(merchant: Merchant, id: string): Promise<SubscriptionView> {
  const response = await merchant.api.get(`/v1/subscriptions/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.json as SubscriptionView;
}

/**
 * Kill Bill's invariant: every period begun is billed once and paid once. Orders = periods billed so far, each order
 * paid by exactly one successful charge, and the current period still running (nothing left unbilled).
 */
async function checkInvariant(daemon: TestDaemon, subscriptionId: string, periods: number) {
  const { orders, attempts } = await ledger(daemon, subscriptionId);
  expect(orders).toHaveLength(periods);
  expect(orders[0]!.billing_reason).toBe('subscription_create');
  for (const order of orders.slice(1)) expect(order.billing_reason).toBe('subscription_cycle');
  for (const order of orders) {
    expect(order.status).toBe('paid');
    expect(attempts.filter((attempt) => attempt.order_id === order.id && attempt.status === 'succeeded')).toHaveLength(
      1,
    );
  }
}

/** Runs `cycles` renewals one period end at a time; answers the period ends seen, and checks the invariant at each. */
async function runCycles(daemon: TestDaemon, merchant: Merchant, subscriptionId: string, cycles: number) {
  const ends: string[] = [];
  let previous = await view(merchant, subscriptionId);
  ends.push(previous.current_period_end);
  for (let cycle = 1; cycle <= cycles; cycle += 1) {
    await moveTo(daemon, new Date(previous.current_period_end));
    const current = await view(merchant, subscriptionId);
    // Contiguous: the new period starts exactly where the last one ended.
    expect(current.current_period_start).toBe(previous.current_period_end);
    expect(new Date(current.current_period_end).getTime()).toBeGreaterThan(daemon.clock.now().getTime());
    expect(current.status).toBe('active');
    await checkInvariant(daemon, subscriptionId, cycle + 1);
    ends.push(current.current_period_end);
    previous = current;
  }
  return ends;
}

const day = (iso: string) => iso.slice(0, 10);

describe('renewals', () => {
  it('a monthly subscription started on 31 January renews twelve times, on the anchor day or the month end', async () => {
    const daemon = await startRenewalDaemon(new Date('2027-01-31T10:00:00.000Z'));
    try {
      const merchant = await createMerchant(daemon);
      const plan = await createPlan(merchant, { interval: 'month' });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      const ends = await runCycles(daemon, merchant, subscriptionId, 12);
      expect(ends.map(day)).toEqual([
        '2027-02-28',
        '2027-03-31',
        '2027-04-30',
        '2027-05-31',
        '2027-06-30',
        '2027-07-31',
        '2027-08-31',
        '2027-09-30',
        '2027-10-31',
        '2027-11-30',
        '2027-12-31',
        '2028-01-31',
        '2028-02-29',
      ]);
      // Moving the clock again to a time already done bills nothing more.
      await moveTo(daemon, daemon.clock.now());
      await checkInvariant(daemon, subscriptionId, 13);
      const { orders } = await ledger(daemon, subscriptionId);
      expect(orders.slice(1).every((order) => order.total_amount === 1000)).toBe(true);
    } finally {
      await daemon.stop();
    }
  });

  it('a yearly subscription and one every two weeks keep their own rhythm', async () => {
    const daemon = await startRenewalDaemon(new Date('2028-02-29T08:30:00.000Z'));
    try {
      const merchant = await createMerchant(daemon);
      const yearly = await createPlan(merchant, { interval: 'year', amount: 12000 });
      const fortnightly = await createPlan(merchant, { interval: 'week', count: 2, amount: 500 });
      const a = await subscribe(daemon, merchant, yearly.id);
      const b = await subscribe(daemon, merchant, fortnightly.id);
      const fortnights = await runCycles(daemon, merchant, b.subscriptionId, 6);
      expect(fortnights.map(day)).toEqual([
        '2028-03-14',
        '2028-03-28',
        '2028-04-11',
        '2028-04-25',
        '2028-05-09',
        '2028-05-23',
        '2028-06-06',
      ]);
      const years = await runCycles(daemon, merchant, a.subscriptionId, 2);
      // Leap day: 28 February in the years without a 29th (the month clamps), counted from the anchor each time.
      expect(years.map(day)).toEqual(['2029-02-28', '2030-02-28', '2031-02-28']);
      // The fortnightly one kept renewing while the clock went by years: every period billed once.
      const fortnightly2 = await view(merchant, b.subscriptionId);
      const { orders } = await ledger(daemon, b.subscriptionId);
      const periods = Math.round(
        (new Date(fortnightly2.current_period_end).getTime() - new Date('2028-02-29T08:30:00.000Z').getTime()) /
          (14 * 86_400_000),
      );
      expect(orders).toHaveLength(periods);
      await checkInvariant(daemon, b.subscriptionId, periods);
    } finally {
      await daemon.stop();
    }
  });

  it('a subscription set to cancel ends at its period end instead of renewing', async () => {
    const daemon = await startRenewalDaemon(new Date('2027-03-01T00:00:00.000Z'));
    try {
      const merchant = await createMerchant(daemon);
      const plan = await createPlan(merchant, { interval: 'month' });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      await runCycles(daemon, merchant, subscriptionId, 1);
      const patched = await merchant.api.call('PATCH', `/v1/subscriptions/${subscriptionId}`, {
        body: { cancel_at_period_end: true },
      });
      expect(patched.status).toBe(200);
      const before = await view(merchant, subscriptionId);
      await moveTo(daemon, new Date(before.current_period_end));
      const ended = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json;
      expect(ended).toMatchObject({ status: 'canceled', ended_at: before.current_period_end });
      await moveTo(daemon, new Date(new Date(before.current_period_end).getTime() + 90 * 86_400_000));
      expect((await ledger(daemon, subscriptionId)).orders).toHaveLength(2);
    } finally {
      await daemon.stop();
    }
  });
});
