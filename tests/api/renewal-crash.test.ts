import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { TEST_SECRET } from '../helpers/daemon.js';
import { crashableDaemon } from '../helpers/crash-daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { createPlan, subscribe } from '../helpers/renewals.js';

const admin = { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } };

/**
 * A real daemon process (the built dist/) under the simulated clock, SIGKILLed at `renewal.charged`: the processor
 * has charged the renewal order, nothing is recorded. Started again, the charge job is retaken (at once on SQLite,
 * whose one daemon releases the dead one's claims; after the lease on PostgreSQL) and charges under the same key, so
 * the processor answers with the first charge: one charge, one payment, one paid order.
 */
describe('a daemon killed between a renewal charge and its record', () => {
  it('charges once and records one payment and one order after the restart', async () => {
    const crash = await crashableDaemon('till-renewal-crash-', { TILL_CLOCK: 'simulated' });
    const { daemon, url, databaseUrl } = crash;
    const start = (env: Record<string, string>) => crash.start(env);
    let child: ResultPromise | null = null;
    const clock = new TestClient(url);
    try {
      child = (await start({ TILL_TEST_CRASH_AT: 'renewal.charged' })).process;
      const merchant = await createMerchant(daemon);
      const plan = await createPlan(merchant, { interval: 'month', amount: 4200 });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      const periodEnd = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json.current_period_end;
      await clock.post('/api/admin/clock', { to: periodEnd }, admin).catch(() => null);
      expect((await child).signal).toBe('SIGKILL');

      child = (await start({})).process;
      // Past the lease of the dead daemon's claim (PostgreSQL); on SQLite the job was free at start already.
      const moved = await clock.post('/api/admin/clock', { advance_seconds: 600 }, admin);
      expect(moved.status, moved.text).toBe(200);
      child.kill('SIGTERM');
      await child;
      child = null;

      const db = createDb(databaseUrl);
      try {
        const orders = await db('orders').where({ subscription_id: subscriptionId }).orderBy('created_at');
        expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
          ['subscription_create', 'paid'],
          ['subscription_cycle', 'paid'],
        ]);
        const renewal = orders[1]!;
        const charges = await db('sandbox_processor_records')
          .where('kind', 'charge')
          .andWhereLike('reference', `renewal:${renewal.id}:%`);
        expect(charges).toHaveLength(1);
        const payments = await db('payment_attempts').where({ order_id: renewal.id, kind: 'charge' });
        expect(payments.map((payment) => payment.status)).toEqual(['succeeded']);
        expect(payments[0].processor_reference).toBe(renewal.payment_reference);
      } finally {
        await db.destroy();
      }
    } finally {
      crash.child = child;
      await crash.dispose();
    }
  }, 180_000);
});
