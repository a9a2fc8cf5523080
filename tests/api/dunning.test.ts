import { describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/kernel/clock.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { createEndpoint } from '../helpers/webhooks.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { createPlan, ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';

const START = new Date('2027-05-10T09:00:00.000Z');

async function subscription(merchant: Merchant, id: string) {
  return (await merchant.api.get(`/v1/subscriptions/${id}`)).json as {
    status: string;
    current_period_end: string;
    ended_at: string | null;
  };
}

/** Points the subscription's saved method at another sandbox test card, as if the bank's answer had changed. */
async function cardNowBehavesAs(daemon: TestDaemon, subscriptionId: string, token: string) {
  await daemon.core
    .db('subscriptions')
    .where({ id: subscriptionId })
    .update({ payment_method_reference: `sandbox_pm_${token}_AAAAAAAAAAAAAAAA` });
}

async function setUp(token: string) {
  const daemon = await startRenewalDaemon(START);
  const merchant = await createMerchant(daemon);
  const receiver = await startReceiver();
  await createEndpoint(merchant, receiver.url, [
    'subscription.updated',
    'subscription.past_due',
    'subscription.active',
    'subscription.canceled',
    'subscription.revoked',
    'order.paid',
  ]);
  const plan = await createPlan(merchant, { interval: 'month', amount: 2500 });
  const bought = await subscribe(daemon, merchant, plan.id, token);
  const periodEnd = new Date((await subscription(merchant, bought.subscriptionId)).current_period_end);
  // What the purchase sent is left out: the tests look at what the renewal sends.
  await daemon.core.webhooks.drain();
  const fromPurchase = receiver.received.length;
  return {
    daemon,
    merchant,
    receiver,
    periodEnd,
    ...bought,
    types: () => receiver.received.slice(fromPurchase).map((delivery) => delivery.json.type as string),
    async close() {
      await daemon.stop();
      await receiver.close();
    },
  };
}

describe('dunning', () => {
  it('a failed renewal makes the subscription past due and mails the customer; the second retry recovers it', async () => {
    const t = await setUp('tok_chargeCustomerFail');
    try {
      await moveTo(t.daemon, t.periodEnd);
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('past_due');
      const { orders } = await ledger(t.daemon, t.subscriptionId);
      const renewal = orders[1]!;
      expect(renewal).toMatchObject({ status: 'pending', billing_reason: 'subscription_cycle', total_amount: 2500 });
      const mails = await t.daemon.core.db('mails').where({ kind: 'subscription-past-due' });
      expect(mails).toHaveLength(1);
      const pastDueAt = await t.daemon.core.db('subscriptions').where({ id: t.subscriptionId }).first('past_due_at');
      expect(new Date(pastDueAt.past_due_at).toISOString()).toBe(t.periodEnd.toISOString());

      // Day 2: declined again; still past due, same order.
      await moveTo(t.daemon, new Date(t.periodEnd.getTime() + 2 * DAY));
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('past_due');
      await cardNowBehavesAs(t.daemon, t.subscriptionId, 'tok_visa');
      // Day 7: paid.
      await moveTo(t.daemon, new Date(t.periodEnd.getTime() + 7 * DAY));
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('active');
      const after = await ledger(t.daemon, t.subscriptionId);
      expect(after.orders.map((order) => [order.id, order.status])).toEqual([
        [orders[0]!.id, 'paid'],
        [renewal.id, 'paid'],
      ]);
      expect(
        after.attempts.filter((attempt) => attempt.order_id === renewal.id).map((attempt) => attempt.status),
      ).toEqual(['failed', 'failed', 'succeeded']);
      // Later retry times find the order paid and charge nothing.
      await moveTo(t.daemon, new Date(t.periodEnd.getTime() + 22 * DAY));
      expect((await ledger(t.daemon, t.subscriptionId)).attempts).toHaveLength(after.attempts.length);
      await t.daemon.core.webhooks.drain();
      expect(t.types()).toEqual([
        // The cycle's new period, then the failed charge's past due.
        'subscription.updated',
        'subscription.updated',
        'subscription.past_due',
        'order.paid',
        'subscription.updated',
        'subscription.active',
      ]);
    } finally {
      await t.close();
    }
  });

  it('retries run out on day 21: the subscription is revoked, its benefits after the grace period', async () => {
    const t = await setUp('tok_chargeCustomerFail');
    try {
      const grace = await t.merchant.api.call('PATCH', `/v1/organizations/${t.merchant.organization.id}`, {
        body: { subscription_settings: { benefit_revocation_grace_period: 7 } },
      });
      expect(grace.status, grace.text).toBe(200);
      await moveTo(t.daemon, t.periodEnd);
      for (const days of [2, 7, 14]) {
        await moveTo(t.daemon, new Date(t.periodEnd.getTime() + days * DAY));
        expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('past_due');
      }
      const last = new Date(t.periodEnd.getTime() + 21 * DAY);
      await moveTo(t.daemon, last);
      const ended = await subscription(t.merchant, t.subscriptionId);
      expect(ended).toMatchObject({ status: 'canceled', ended_at: last.toISOString() });
      const { attempts } = await ledger(t.daemon, t.subscriptionId);
      expect(attempts.filter((attempt) => attempt.status === 'failed')).toHaveLength(5);
      const jobs = await t.daemon.core.db('scheduled_jobs').where({ subject_id: t.subscriptionId });
      expect(jobs.map((job) => [job.kind, new Date(job.due_at).toISOString()])).toEqual([
        ['subscription.benefits_revoke', new Date(last.getTime() + 7 * DAY).toISOString()],
      ]);
      await moveTo(t.daemon, new Date(last.getTime() + 7 * DAY));
      expect(await t.daemon.core.db('scheduled_jobs').where({ subject_id: t.subscriptionId })).toEqual([]);
      await t.daemon.core.webhooks.drain();
      expect(t.types().slice(-3)).toEqual(['subscription.updated', 'subscription.canceled', 'subscription.revoked']);
    } finally {
      await t.close();
    }
  });

  it('a new default card in the portal retries the past-due order at once', async () => {
    const t = await setUp('tok_chargeCustomerFail');
    try {
      await moveTo(t.daemon, t.periodEnd);
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('past_due');
      // The checkout's portal session has expired by now: the merchant opens a new one.
      const session = await t.merchant.api.post('/v1/customer-sessions/', { customer_id: t.customerId });
      expect(session.status, session.text).toBe(201);
      const added = await new TestClient(t.daemon.url).post(
        '/v1/customer-portal/customers/me/payment-methods',
        { confirmation_token_id: 'tok_visa', set_default: true, return_url: 'https://shop.example/back' },
        { headers: { authorization: `Bearer ${session.json.token}` } },
      );
      expect(added.status, added.text).toBe(201);
      // The clock has not moved: the retry is due now (drained here rather than waiting for the worker's poll).
      await t.daemon.core.scheduler.drain();
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('active');
      const { orders, attempts } = await ledger(t.daemon, t.subscriptionId);
      expect(orders.map((order) => order.status)).toEqual(['paid', 'paid']);
      expect(attempts.filter((attempt) => attempt.order_id === orders[1]!.id).map((a) => a.status)).toEqual([
        'failed',
        'succeeded',
      ]);
    } finally {
      await t.close();
    }
  });

  it('a lost card ends the subscription at once, without retries', async () => {
    const t = await setUp('tok_visa');
    try {
      await cardNowBehavesAs(t.daemon, t.subscriptionId, 'tok_chargeDeclinedLostCard');
      await moveTo(t.daemon, t.periodEnd);
      const ended = await subscription(t.merchant, t.subscriptionId);
      expect(ended).toMatchObject({ status: 'canceled', ended_at: t.periodEnd.toISOString() });
      const { attempts } = await ledger(t.daemon, t.subscriptionId);
      expect(attempts.map((attempt) => attempt.decline_reason)).toEqual([null, 'lost_card']);
      // Grace 0: benefits are revoked at the end itself, so nothing waits.
      await moveTo(t.daemon, new Date(t.periodEnd.getTime() + 30 * DAY));
      expect(await t.daemon.core.db('scheduled_jobs').where({ subject_id: t.subscriptionId })).toEqual([]);
      await t.daemon.core.webhooks.drain();
      expect(t.types()).not.toContain('subscription.past_due');
    } finally {
      await t.close();
    }
  });

  it('retry-payment charges a past-due subscription now, outside the retry schedule, and refuses one not past due', async () => {
    const t = await setUp('tok_chargeCustomerFail');
    try {
      const early = await t.merchant.api.post(`/v1/subscriptions/${t.subscriptionId}/retry-payment`);
      expect(early.status).toBe(409);
      expect(early.json.error).toBe('SubscriptionNotPastDue');
      await moveTo(t.daemon, t.periodEnd);
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('past_due');
      await cardNowBehavesAs(t.daemon, t.subscriptionId, 'tok_visa');
      // An hour later, days before the first scheduled retry: the merchant retries by hand.
      t.daemon.clock.advance(3_600_000);
      const retried = await t.merchant.api.post(`/v1/subscriptions/${t.subscriptionId}/retry-payment`);
      expect(retried.status).toBe(202);
      expect(retried.json).toMatchObject({ id: t.subscriptionId, status: 'past_due' });
      await t.daemon.core.scheduler.drain();
      expect((await subscription(t.merchant, t.subscriptionId)).status).toBe('active');
      const { orders } = await ledger(t.daemon, t.subscriptionId);
      expect(orders.map((order) => order.status)).toEqual(['paid', 'paid']);
    } finally {
      await t.close();
    }
  });
});
