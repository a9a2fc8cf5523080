import { describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/kernel/clock.js';
import { createCheckout } from '../helpers/catalog.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { createPlan, ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';

const START = new Date('2027-06-01T12:00:00.000Z');

async function subscription(merchant: Merchant, id: string) {
  return (await merchant.api.get(`/v1/subscriptions/${id}`)).json as {
    status: string;
    trial_start: string | null;
    trial_end: string | null;
    current_period_start: string;
    current_period_end: string;
  };
}

const patch = (merchant: Merchant, id: string, body: unknown) =>
  merchant.api.call('PATCH', `/v1/subscriptions/${id}`, { body });

describe('trials', () => {
  it('a product with a 14-day trial: trialing, an order of 0, a reminder 3 days before, then billed and active', async () => {
    const daemon = await startRenewalDaemon(START);
    try {
      const merchant = await createMerchant(daemon);
      const plan = await createPlan(merchant, {
        interval: 'month',
        amount: 3000,
        trial_interval: 'day',
        trial_interval_count: 14,
      });
      const checkout = await createCheckout(merchant, [plan.id]);
      expect(checkout).toMatchObject({ active_trial_interval: 'day', active_trial_interval_count: 14 });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      const trialEnd = new Date(START.getTime() + 14 * DAY).toISOString();
      expect(await subscription(merchant, subscriptionId)).toMatchObject({
        status: 'trialing',
        trial_start: START.toISOString(),
        trial_end: trialEnd,
        current_period_end: trialEnd,
      });
      const first = await ledger(daemon, subscriptionId);
      expect(first.orders.map((order) => [order.billing_reason, order.total_amount, order.status])).toEqual([
        ['subscription_create', 0, 'paid'],
      ]);

      await moveTo(daemon, new Date(START.getTime() + 11 * DAY));
      expect(await daemon.core.db('mails').where({ kind: 'subscription-trial-ending' })).toHaveLength(1);

      await moveTo(daemon, new Date(trialEnd));
      expect(await subscription(merchant, subscriptionId)).toMatchObject({
        status: 'active',
        current_period_start: trialEnd,
        current_period_end: '2027-07-15T12:00:00.000Z',
      });
      const { orders } = await ledger(daemon, subscriptionId);
      expect(orders.map((order) => [order.billing_reason, order.total_amount, order.status])).toEqual([
        ['subscription_create', 0, 'paid'],
        ['subscription_cycle', 3000, 'paid'],
      ]);
    } finally {
      await daemon.stop();
    }
  });

  it('PATCH trial_end extends a trial, and "now" ends it and bills at once', async () => {
    const daemon = await startRenewalDaemon(START);
    try {
      const merchant = await createMerchant(daemon);
      const plan = await createPlan(merchant, { interval: 'month', amount: 900, trial_interval: 'week' });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      const later = new Date(START.getTime() + 20 * DAY).toISOString();
      const extended = await patch(merchant, subscriptionId, { trial_end: later });
      expect(extended.status, extended.text).toBe(200);
      expect(extended.json).toMatchObject({ status: 'trialing', trial_end: later, current_period_end: later });
      // The old end passes without a bill.
      await moveTo(daemon, new Date(START.getTime() + 8 * DAY));
      expect((await ledger(daemon, subscriptionId)).orders).toHaveLength(1);
      expect((await patch(merchant, subscriptionId, { trial_end: START.toISOString() })).status).toBe(422);

      const ended = await patch(merchant, subscriptionId, { trial_end: 'now' });
      expect(ended.status, ended.text).toBe(200);
      const now = daemon.clock.now().toISOString();
      expect(ended.json).toMatchObject({ status: 'active', trial_end: now, current_period_start: now });
      await daemon.core.scheduler.drain();
      const { orders } = await ledger(daemon, subscriptionId);
      expect(orders.map((order) => [order.billing_reason, order.total_amount, order.status])).toEqual([
        ['subscription_create', 0, 'paid'],
        ['subscription_cycle', 900, 'paid'],
      ]);
      // Nothing more at the extended end: the period now runs from the trial's end.
      await moveTo(daemon, new Date(later));
      expect((await ledger(daemon, subscriptionId)).orders).toHaveLength(2);
      expect((await patch(merchant, subscriptionId, { trial_end: 'now' })).status).toBe(422);
    } finally {
      await daemon.stop();
    }
  });

  it('with prevent_trial_abuse, a second trial for the same person is refused with TrialAlreadyRedeemed', async () => {
    const daemon = await startRenewalDaemon(START);
    try {
      const merchant = await createMerchant(daemon);
      const settings = await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
        body: { subscription_settings: { prevent_trial_abuse: true } },
      });
      expect(settings.status, settings.text).toBe(200);
      const plan = await createPlan(merchant, { interval: 'month', trial_interval: 'day', trial_interval_count: 7 });
      await subscribe(daemon, merchant, plan.id, 'tok_visa', { customer_email: 'jane.doe@gmail.com' });
      // The same mailbox, written another way.
      const again = await createCheckout(merchant, [plan.id], { customer_email: 'Jane.Doe+again@gmail.com' });
      const client = new TestClient(daemon.url);
      const refused = await client.post(`/v1/checkouts/client/${again.client_secret}/confirm`, {
        customer_billing_address: { country: 'DE' },
        confirmation_token_id: 'tok_visa',
      });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        error: 'TrialAlreadyRedeemed',
        detail: 'You have already used a trial for this product. Trials can only be used once per customer.',
      });
      expect((await merchant.api.get(`/v1/checkouts/${again.id}`)).json.status).toBe('open');
      // Without the trial the same person may subscribe, paying today.
      const paid = await client.post(`/v1/checkouts/client/${again.client_secret}/confirm`, {
        customer_billing_address: { country: 'DE' },
        confirmation_token_id: 'tok_visa',
        allow_trial: false,
      });
      expect(paid.status, paid.text).toBe(200);
      const orders = await merchant.api.get(`/v1/orders/?checkout_id=${again.id}`);
      expect(orders.json.items[0]).toMatchObject({ total_amount: 1000, billing_reason: 'subscription_create' });
    } finally {
      await daemon.stop();
    }
  });
});
