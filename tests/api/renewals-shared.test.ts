import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testDialect } from '../helpers/database.js';
import { createMerchant } from '../helpers/v1.js';
import { createPlan, startRenewalDaemon, subscribe } from '../helpers/renewals.js';

// Issue 17's figure; about a minute on two cores now that a batch's subjects run side by side (bench/renewals).
const COUNT = 2000;
const START = new Date('2027-09-01T00:00:00.000Z');

/**
 * Copies of one bought subscription (seeded straight into the tables, as a merchant with many customers would have
 * them), every one due at the same instant, each with its cycle job.
 */
async function seed(daemon: TestDaemon, subscriptionId: string, count: number) {
  const db = daemon.core.db;
  const source = await db('subscriptions').where({ id: subscriptionId }).first();
  const customer = await db('customers').where({ id: source.customer_id }).first();
  const [job] = await db('scheduled_jobs').where({ subject_id: subscriptionId });
  const ids: string[] = [];
  // Each of its own customer, as a shop's subscriptions are (a customer's state lists all of theirs).
  for (let start = 0; start < count - 1; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - 1 - start) }, () => [randomUUID(), randomUUID()]);
    ids.push(...batch.map(([id]) => id!));
    await db('customers').insert(
      batch.map(([, customerId], i) => ({ ...customer, id: customerId, email: `s${start + i}-${customer.email}` })),
    );
    await db('subscriptions').insert(batch.map(([id, customerId]) => ({ ...source, id, customer_id: customerId })));
    await db('scheduled_jobs').insert(batch.map(([id]) => ({ ...job, id: randomUUID(), subject_id: id })));
  }
  return [subscriptionId, ...ids];
}

describe.runIf(testDialect === 'postgres')('PostgreSQL: two daemons renewing one database', () => {
  it(`renew ${COUNT} subscriptions due at one instant once each: ${COUNT} orders, ${COUNT} charges`, async () => {
    const first = await startRenewalDaemon(START);
    let second: TestDaemon | undefined;
    try {
      const merchant = await createMerchant(first);
      const plan = await createPlan(merchant, { interval: 'month', amount: 700 });
      const { subscriptionId } = await subscribe(first, merchant, plan.id);
      const ids = await seed(first, subscriptionId, COUNT);
      second = await startTestDaemon(
        { databaseUrl: first.database.url },
        { clock: new ManualClock(first.clock.now()) },
      );
      const due = (await first.core.db('subscriptions').where({ id: subscriptionId }).first()).current_period_end;
      for (const daemon of [first, second]) daemon.clock.set(new Date(due));
      await Promise.all([first.core.scheduler.drain(), second.core.scheduler.drain()]);
      await Promise.all([first.core.scheduler.drain(), second.core.scheduler.drain()]);

      const db = first.core.db;
      const orders = await db('orders').where({ billing_reason: 'subscription_cycle' }).whereIn('subscription_id', ids);
      expect(orders).toHaveLength(COUNT);
      expect(new Set(orders.map((order) => order.subscription_id)).size).toBe(COUNT);
      expect(orders.every((order) => order.status === 'paid')).toBe(true);
      const charges = await db('sandbox_processor_records')
        .where('kind', 'charge')
        .andWhereLike('reference', 'renewal:%');
      expect(charges).toHaveLength(COUNT);
      const payments = await db('payment_attempts')
        .whereIn(
          'order_id',
          orders.map((order) => order.id),
        )
        .where({ status: 'succeeded' });
      expect(payments).toHaveLength(COUNT);
      // Every subscription moved on exactly one period.
      const renewed = await db('subscriptions').whereIn('id', ids).where({ billed_periods: 2 }).count({ n: '*' });
      expect(Number(renewed[0]!.n)).toBe(COUNT);
    } finally {
      await second?.close();
      await first.stop();
    }
  }, 300_000);
});
