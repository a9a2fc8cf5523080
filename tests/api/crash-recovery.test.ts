import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import type { CrashPoint } from '../../src/core/kernel/crash.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { crashableDaemon } from '../helpers/crash-daemon.js';
import { until } from '../helpers/webhooks.js';
import { TestClient } from '../helpers/http.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

/**
 * A real daemon process, killed with SIGKILL (TILL_TEST_CRASH_AT) at each point where money is in flight, then
 * started again with a lease of 0 so its reconciler settles at once what the dead one left: one order per charge,
 * exactly one processor charge per checkout, refunds settled and their reservations released, no row left in flight.
 * Runs on the test database's dialect.
 */
describe('nothing stuck after a crash', () => {
  it('a daemon killed after the charge, before it, after a refund and before one leaves nothing in flight once restarted', async () => {
    const crash = await crashableDaemon('till-crash-');
    const { daemon, url, databaseUrl } = crash;
    const start = (env: Record<string, string>) => crash.start(env);
    let child: ResultPromise | null = null;
    /** Starts a daemon that dies at `point`, runs `action` (whose request dies with it) and waits for the death. */
    const crashAt = async (point: CrashPoint, action: () => Promise<unknown>) => {
      child = (await start({ TILL_TEST_CRASH_AT: point })).process;
      await action().catch(() => null);
      const ended = await child;
      child = null;
      expect(ended.signal).toBe('SIGKILL');
    };
    const confirm = (clientSecret: string) =>
      new TestClient(url).post(`/v1/checkouts/client/${clientSecret}/confirm`, {
        customer_billing_address: { country: 'DE' },
        confirmation_token_id: 'tok_visa',
      });
    const refund = (merchant: Merchant, orderId: string, amount: number) =>
      merchant.api.post('/v1/refunds/', { order_id: orderId, amount, reason: 'customer_request' });

    try {
      let merchant!: Merchant;
      let charged!: { id: string; client_secret: string };
      // 1. Charged, no order yet.
      await crashAt('checkout.charged', async () => {
        merchant = await createMerchant(daemon);
        const product = await createProduct(merchant);
        charged = await createCheckout(merchant, [product.id], { customer_email: 'charged@example.com' });
        await confirm(charged.client_secret);
      });
      // 2. Confirmed, not charged yet. The checkout above is younger than the default lease: still left alone.
      let unpaid!: { id: string; client_secret: string };
      await crashAt('checkout.confirmed', async () => {
        expect((await merchant.api.get(`/v1/checkouts/${charged.id}`)).json.status).toBe('confirmed');
        const product = await createProduct(merchant, { recurring_interval: 'month' });
        unpaid = await createCheckout(merchant, [product.id], { customer_email: 'unpaid@example.com' });
        await confirm(unpaid.client_secret);
      });
      // 3. A refund the processor made, not written; 4. a refund reserved, never sent.
      let orderId!: string;
      await crashAt('refund.processed', async () => {
        orderId = (await paidOrder(daemon, merchant, 1000)).order.id;
        await refund(merchant, orderId, 300);
      });
      await crashAt('refund.reserved', () => refund(merchant, orderId, 200));

      child = (await start({ TILL_RECONCILE_LEASE_MS: '0' })).process;
      const status = async (id: string) => (await merchant.api.get(`/v1/checkouts/${id}`)).json.status as string;
      const refunds = async () =>
        (await merchant.api.get(`/v1/refunds/?order_id=${orderId}`)).json.items as Array<{
          id: string;
          status: string;
          amount: number;
        }>;
      await until(
        async () =>
          (await status(charged.id)) !== 'confirmed' &&
          (await status(unpaid.id)) !== 'confirmed' &&
          (await refunds()).every((row) => row.status !== 'pending'),
      );
      // The charged checkout has its one order; the unpaid one is open again for the buyer's retry.
      expect(await status(charged.id)).toBe('succeeded');
      expect((await merchant.api.get(`/v1/orders/?checkout_id=${charged.id}`)).json.items).toHaveLength(1);
      expect(await status(unpaid.id)).toBe('open');
      expect((await merchant.api.get(`/v1/orders/?checkout_id=${unpaid.id}`)).json.items).toHaveLength(0);
      // Both refunds went through once (the second sent by the reconciler under its key) and are counted once.
      expect((await refunds()).map((row) => `${row.amount} ${row.status}`).sort()).toEqual([
        '200 succeeded',
        '300 succeeded',
      ]);
      expect((await merchant.api.get(`/v1/orders/${orderId}`)).json).toMatchObject({
        refunded_amount: 500,
        status: 'partially_refunded',
      });
      child.kill('SIGTERM');
      await child;
      child = null;

      const db = createDb(databaseUrl);
      try {
        const count = async (table: string, where: (query: ReturnType<typeof db>) => unknown) => {
          const query = db(table);
          where(query);
          return Number((await query.count({ n: '*' }))[0]!.n);
        };
        const chargesOf = (checkoutId: string) =>
          count('sandbox_processor_records', (q) =>
            q.where('kind', 'charge').andWhereLike('reference', `${checkoutId}:%`),
          );
        expect(await chargesOf(charged.id)).toBe(1);
        expect(await chargesOf(unpaid.id)).toBe(0);
        expect(await count('sandbox_processor_records', (q) => q.where('kind', 'refund'))).toBe(2);
        expect(await count('payment_attempts', (q) => q.where({ checkout_id: charged.id, kind: 'charge' }))).toBe(1);
        expect(await count('checkouts', (q) => q.where('status', 'confirmed'))).toBe(0);
        expect(await count('refunds', (q) => q.where('status', 'pending'))).toBe(0);
        expect(await count('orders', (q) => q.where('organization_id', merchant.organization.id))).toBe(2);
      } finally {
        await db.destroy();
      }
    } finally {
      crash.child = child;
      await crash.dispose();
    }
  }, 180_000);
});
