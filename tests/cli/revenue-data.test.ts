import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { resolveTarget } from '../../src/cli/target.js';
import { createHttpData } from '../../src/cli/tui/revenue-dashboard/data.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { ALL_SCOPES, createMerchant, type Merchant } from '../helpers/v1.js';

// The dashboard's HTTP data layer against a real daemon: what `till dashboard` loads and what its actions send.

let daemon: TestDaemon;
let merchant: Merchant;
beforeAll(async () => {
  daemon = await startTestDaemon(undefined, { clock: new ManualClock(new Date()) });
  merchant = await createMerchant(daemon, { name: 'Data Co', scopes: [...ALL_SCOPES, 'metrics:read'] });
});
afterAll(async () => {
  await daemon?.stop();
});

const data = (token = merchant.owner.token) =>
  createHttpData(
    resolveTarget({}, { TILL_URL: daemon.url, TILL_TOKEN: token, XDG_CONFIG_HOME: '/nonexistent-till-config' }),
  );

describe('the revenue dashboard data layer', () => {
  it('loads the figures for a window, the newest orders and the limits, in the organization currency', async () => {
    const first = await paidOrder(daemon, merchant, 1900);
    const plan = await paidOrder(daemon, merchant, 4900, 'month');
    const snapshot = await data().load({ range: '7d', interval: 'day' });
    expect(snapshot.scope).toBe('Data Co');
    expect(snapshot.currency).toBe('usd');
    expect(snapshot.window).toEqual({ range: '7d', interval: 'day' });
    expect(snapshot.metrics.periods).toHaveLength(7);
    expect(snapshot.metrics.totals.orders).toBe(2);
    expect(snapshot.metrics.periods.at(-1)?.monthly_recurring_revenue).toBe(4900);
    expect(snapshot.limits.intervals.hour.max_days).toBeGreaterThanOrEqual(7);
    expect(snapshot.orders.map((order) => order.id).sort()).toEqual([first.order.id, plan.order.id].sort());
    expect(snapshot.pastDue).toEqual([]);
    // An organization access token acts for its own organization, named and in its currency all the same.
    const byToken = await data(merchant.token).load({ range: '1y', interval: 'month' });
    expect(byToken.scope).toBe('Data Co');
    expect(byToken.metrics.totals.orders).toBe(2);
    expect(byToken.metrics.periods.length).toBeGreaterThanOrEqual(12);
  });

  it('cancels at the period end, opens the customer with a portal link, and passes on a refused retry', async () => {
    const plan = await paidOrder(daemon, merchant, 2900, 'month');
    const layer = data();
    const said = await layer.cancel(plan.subscriptionId!);
    expect(said).toMatch(new RegExp(`^Subscription ${plan.subscriptionId} will end on \\d{4}-\\d{2}-\\d{2}T`));
    const subscription = await merchant.api.get(`/v1/subscriptions/${plan.subscriptionId}`);
    expect(subscription.json.cancel_at_period_end).toBe(true);

    const customer = await layer.openCustomer(plan.customerId);
    expect(customer.id).toBe(plan.customerId);
    expect(customer.label).toMatch(/^buyer-.*@example\.com$/);
    expect(customer.activeSubscriptions).toBe(1);
    expect(customer.portalUrl).toMatch(new RegExp(`^${daemon.url}/`));

    // Until the dunning engine makes subscriptions past due, the row is set so: the list asks for status=past_due.
    await daemon.core.db('subscriptions').where({ id: plan.subscriptionId }).update({ status: 'past_due' });
    const late = await layer.load({ range: '30d', interval: 'day' });
    expect(late.pastDue.map((subscription) => subscription.id)).toEqual([plan.subscriptionId]);
    await daemon.core.db('subscriptions').where({ id: plan.subscriptionId }).update({ status: 'active' });

    // An active subscription is not the retry's to charge: whatever the daemon answers is the error shown.
    await expect(layer.retryPayment(plan.subscriptionId!)).rejects.toThrow();
  });
});
