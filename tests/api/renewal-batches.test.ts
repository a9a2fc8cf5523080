import { describe, expect, it } from 'vitest';
import { createMerchant } from '../helpers/v1.js';
import { createPlan, ledger, moveTo, startRenewalDaemon, subscribe } from '../helpers/renewals.js';
import { patch } from '../helpers/subscription-changes.js';

// Subscriptions due at one instant are renewed in one batch (renewals/cycle-batch.ts, charge-batch.ts): each keeps
// what its own cycle would have done, whatever the others in the batch need.
describe('renewals due together', () => {
  it('a plain renewal, a cancel, a pause, a next_period change and a decline in one batch each get their own outcome', async () => {
    const daemon = await startRenewalDaemon(new Date('2027-03-10T09:00:00.000Z'));
    try {
      const merchant = await createMerchant(daemon);
      const basic = await createPlan(merchant, { interval: 'month', amount: 1000 });
      const premium = await createPlan(merchant, { interval: 'month', amount: 2500 });
      const plain = await subscribe(daemon, merchant, basic.id);
      const canceling = await subscribe(daemon, merchant, basic.id);
      const pausing = await subscribe(daemon, merchant, basic.id);
      const changing = await subscribe(daemon, merchant, basic.id);
      const declining = await subscribe(daemon, merchant, basic.id, 'tok_chargeCustomerFail');
      const set = (id: string, body: Record<string, unknown>) => patch(merchant.api, `/v1/subscriptions/${id}`, body);
      expect((await set(canceling.subscriptionId, { cancel_at_period_end: true })).status).toBe(200);
      expect((await set(pausing.subscriptionId, { pause_at_period_end: true })).status).toBe(200);
      const next = await set(changing.subscriptionId, { product_id: premium.id, proration_behavior: 'next_period' });
      expect(next.status, next.text).toBe(200);
      const cycleJobs = await daemon.core.db('scheduled_jobs').where({ kind: 'subscription.cycle' }).distinct('due_at');
      // All five fall due at the same instant, so one claim takes them together.
      expect(cycleJobs).toHaveLength(1);
      await moveTo(daemon, new Date(new Date(cycleJobs[0]!.due_at as string).getTime() + 1000));

      const row = (id: string) => daemon.core.db('subscriptions').where({ id }).first();
      const cycleOrders = async (id: string) =>
        (await ledger(daemon, id)).orders.filter((order) => order.billing_reason === 'subscription_cycle');

      const plainOrders = await cycleOrders(plain.subscriptionId);
      expect(plainOrders.map((order) => order.status)).toEqual(['paid']);
      expect(plainOrders[0]!.subtotal_amount).toBe(1000);
      const plainEvents = (
        await daemon.core.db('outbox_events').where({ organization_id: merchant.organization.id }).orderBy('id')
      )
        .filter((event) => String(event.payload).includes(plain.subscriptionId))
        .filter((event) => new Date(event.created_at as string) > new Date('2027-04-01T00:00:00.000Z'))
        .map((event) => String(event.type));
      expect(plainEvents).toEqual([
        'subscription.updated',
        'subscription.cycled',
        'order.created',
        'order.updated',
        'order.paid',
        'customer.state_changed',
      ]);

      expect(await row(canceling.subscriptionId)).toMatchObject({ status: 'canceled' });
      expect((await row(canceling.subscriptionId)).ended_at).not.toBeNull();
      expect(await cycleOrders(canceling.subscriptionId)).toHaveLength(0);

      expect(await row(pausing.subscriptionId)).toMatchObject({ status: 'paused' });
      expect(await cycleOrders(pausing.subscriptionId)).toHaveLength(0);

      const changed = await cycleOrders(changing.subscriptionId);
      expect(changed.map((order) => [order.status, order.subtotal_amount])).toEqual([['paid', 2500]]);
      expect(await row(changing.subscriptionId)).toMatchObject({ product_id: premium.id, status: 'active' });

      expect(await row(declining.subscriptionId)).toMatchObject({ status: 'past_due' });
      expect((await cycleOrders(declining.subscriptionId)).map((order) => order.status)).toEqual(['pending']);

      // One charge per cycle order, and the invoice numbers of the batch are distinct.
      const charges = await daemon.core.db('sandbox_processor_records').where('reference', 'like', 'renewal:%');
      expect(charges).toHaveLength(3);
      const numbers = await daemon.core.db('orders').pluck('invoice_number');
      expect(new Set(numbers).size).toBe(numbers.length);
    } finally {
      await daemon.stop();
    }
  });
  it('leaves the metrics contributions of a subscription a renewal does not change as they were', async () => {
    const daemon = await startRenewalDaemon(new Date('2027-03-10T09:00:00.000Z'));
    try {
      const merchant = await createMerchant(daemon);
      const basic = await createPlan(merchant, { interval: 'month', amount: 1000 });
      const plain = await subscribe(daemon, merchant, basic.id);
      const contributions = () =>
        daemon.core
          .db('metrics_source_deltas')
          .where({ source_id: plain.subscriptionId })
          .orderBy('id')
          .select('id', 'hour', 'active_subscriptions', 'monthly_recurring_revenue');
      const before = await contributions();
      expect(before.length).toBeGreaterThan(0);
      const [job] = await daemon.core.db('scheduled_jobs').where({ kind: 'subscription.cycle' });
      await moveTo(daemon, new Date(new Date(job!.due_at as string).getTime() + 1000));
      const cycles = (await ledger(daemon, plain.subscriptionId)).orders.filter(
        (order) => order.billing_reason === 'subscription_cycle',
      );
      expect(cycles.map((order) => order.status)).toEqual(['paid']);
      // The same rows, not deleted and written again: the cycle's rollups left them alone.
      expect(await contributions()).toEqual(before);
    } finally {
      await daemon.stop();
    }
  });
});
