import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/database/index.js';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/webhooks/schemas.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { TEST_SECRET, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { TestClient } from '../helpers/http.js';
import { buyerEmail } from '../helpers/purchases.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { createEndpoint, until } from '../helpers/webhooks.js';
import { TILL_BIN, freePort } from '../cli/till.js';

const LOAD_MS = 30_000;
const WORKERS = 6;
const DAY_SECONDS = 86_400;

/**
 * Three daemon processes on one PostgreSQL database, hit in turn, under mixed load (purchases of one-time and monthly
 * products, refunds, renewals through the simulated clock, webhook deliveries to one receiver). One daemon is
 * SIGKILLed at a random moment and started again. Afterwards nothing is lost or doubled: every acknowledged purchase
 * has its order, no order, charge or refund exists twice, every event reached the receiver, and no claim is held.
 */
describe('three daemons under load, one killed', () => {
  it.runIf(testDialect === 'postgres')(
    'keeps every acknowledged purchase and refund, doubles nothing and delivers every event',
    async () => {
      const database = await createTestDatabase();
      const ports = [await freePort(), await freePort(), await freePort()];
      const urls = ports.map((port) => `http://127.0.0.1:${port}`);
      const dataDirs = ports.map(() => mkdtempSync(join(tmpdir(), 'till-multi-')));
      const children: Array<ResultPromise | null> = [null, null, null];
      const receiver = await startReceiver();
      const admin = { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } };

      const answers = async (url: string) => {
        const answer = await request(`${url}/api/auth/ok`, { headersTimeout: 1000, bodyTimeout: 1000 }).catch(
          () => null,
        );
        await answer?.body.dump();
        return answer?.statusCode === 200;
      };
      const start = async (index: number) => {
        children[index] = execa(process.execPath, [TILL_BIN, 'daemon', 'run'], {
          env: {
            PATH: process.env.PATH!,
            TILL_DATA_DIR: dataDirs[index]!,
            TILL_DATABASE_URL: database.url,
            TILL_PORT: String(ports[index]),
            TILL_SECRET: TEST_SECRET,
            TILL_BCRYPT_COST: '4',
            TILL_RATE_LIMIT: 'off',
            TILL_CLOCK: 'simulated',
            TILL_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
            TILL_RECONCILE_LEASE_MS: '5000',
          },
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        });
        await until(() => answers(urls[index]!), 60_000);
      };

      try {
        // Started one after another: the first migrates, the others find it done.
        for (const index of [0, 1, 2]) await start(index);
        const daemonAt = (turn: number) => ({ url: urls[turn % 3]! }) as TestDaemon;
        const merchant = await createMerchant(daemonAt(0));
        await createEndpoint(merchant, receiver.url, [...WEBHOOK_EVENT_TYPES]);
        const oneTime = await createProduct(merchant, { name: 'Download' });
        const monthly = await createProduct(merchant, {
          name: 'Monthly',
          recurring_interval: 'month',
          prices: [{ amount_type: 'fixed', price_amount: 2000, price_currency: 'usd' }],
        });

        const acknowledged: Array<{ checkoutId: string; recurring: boolean }> = [];
        const refundable: string[] = [];
        const refunds: string[] = [];
        let turn = 0;
        let advances = 0;
        const stopAt = Date.now() + LOAD_MS;
        const clientOf = () => bearerClient(daemonAt(turn++), merchant.token);

        const buy = async () => {
          const recurring = Math.random() < 0.4;
          const checkout = await createCheckout(merchant, [(recurring ? monthly : oneTime).id], {
            customer_email: buyerEmail(),
          }).catch(() => null);
          if (!checkout) return;
          const confirmed = await new TestClient(urls[turn++ % 3]!)
            .post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
              customer_billing_address: { country: 'DE' },
              confirmation_token_id: 'tok_visa',
            })
            .catch(() => null);
          if (confirmed?.status !== 200) return;
          acknowledged.push({ checkoutId: checkout.id, recurring });
          if (!recurring) refundable.push(checkout.id);
        };
        const refund = async () => {
          const checkoutId = refundable.splice(Math.floor(Math.random() * refundable.length), 1)[0];
          if (!checkoutId) return;
          const client = clientOf();
          const orders = await client.get(`/v1/orders/?checkout_id=${checkoutId}`).catch(() => null);
          const orderId = orders?.json?.items?.[0]?.id as string | undefined;
          if (!orderId) return;
          const made = await client
            .post('/v1/refunds/', { order_id: orderId, amount: 100, reason: 'customer_request' })
            .catch(() => null);
          if (made && made.status < 300) refunds.push(made.json.id as string);
        };
        const worker = async () => {
          while (Date.now() < stopAt) await (Math.random() < 0.2 ? refund() : buy());
        };
        // Renewals: a month on the simulated clock every few seconds, through whichever daemon is next.
        const renewer = async () => {
          while (Date.now() < stopAt) {
            await new Promise((resolve) => setTimeout(resolve, 4_000));
            const moved = await new TestClient(urls[turn++ % 3]!)
              .post('/api/admin/clock', { advance_seconds: 31 * DAY_SECONDS }, admin)
              .catch(() => null);
            if (moved?.status === 200) advances++;
          }
        };
        const killer = async () => {
          await new Promise((resolve) => setTimeout(resolve, 5_000 + Math.random() * 20_000));
          const victim = Math.floor(Math.random() * 3);
          children[victim]!.kill('SIGKILL');
          const ended = await children[victim]!;
          expect(ended.signal).toBe('SIGKILL');
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          await start(victim);
        };
        await Promise.all([...Array.from({ length: WORKERS }, worker), renewer(), killer()]);

        // Settle: past every lease (reconciler, scheduler, webhook claims), on every daemon, until nothing is in flight
        // or waiting to be fanned out.
        const db = createDb(database.url);
        try {
          const count = async (sql: string) =>
            Number(((await db.raw(sql)) as { rows: Array<{ n: string }> }).rows[0]!.n);
          const settled = async () => {
            const moved = await new TestClient(urls[turn++ % 3]!)
              .post('/api/admin/clock', { advance_seconds: 3600 }, admin)
              .catch(() => null);
            if (moved?.status !== 200) return false;
            return (
              (await count(`SELECT count(*) AS n FROM checkouts WHERE status = 'confirmed'`)) === 0 &&
              (await count(`SELECT count(*) AS n FROM refunds WHERE status = 'pending'`)) === 0 &&
              // Outbox rows not yet fanned out become pending deliveries later; the dispatcher moves a row from the
              // one to the other in one transaction, so counting in this order misses none.
              (await count(`SELECT count(*) AS n FROM outbox_pending`)) === 0 &&
              (await count(`SELECT count(*) AS n FROM webhook_events WHERE status = 'pending'`)) === 0
            );
          };
          // A month more with every daemon up, so renewals happen whatever the kill interrupted during the load.
          const month = async () =>
            (
              await new TestClient(urls[turn++ % 3]!)
                .post('/api/admin/clock', { advance_seconds: 31 * DAY_SECONDS }, admin)
                .catch(() => null)
            )?.status === 200;
          await until(month, 120_000);
          await until(settled, 120_000);

          expect(acknowledged.length).toBeGreaterThan(20);
          // Every purchase the buyer was told succeeded has its order, and no checkout has two.
          const ids = acknowledged.map((row) => row.checkoutId);
          // Renewals carry no checkout of their own; the purchase order is the one per checkout.
          const purchases = () =>
            db('orders').whereNotIn('billing_reason', ['subscription_cycle', 'subscription_update']);
          const ordered = (await purchases()
            .whereIn('checkout_id', ids)
            .select('checkout_id')
            .count({ n: '*' })
            .groupBy('checkout_id')) as Array<{ checkout_id: string; n: string }>;
          expect(ordered.length).toBe(ids.length);
          expect(ordered.filter((row) => Number(row.n) !== 1)).toEqual([]);
          expect(
            await count(
              `SELECT count(*) AS n FROM (SELECT checkout_id FROM orders WHERE checkout_id IS NOT NULL
               AND billing_reason NOT IN ('subscription_cycle', 'subscription_update')
               GROUP BY checkout_id HAVING count(*) > 1) doubled`,
            ),
          ).toBe(0);
          // One successful processor charge per ordered checkout and per renewal order.
          expect(
            await count(
              `SELECT count(*) AS n FROM (SELECT CASE WHEN reference LIKE 'renewal:%' THEN split_part(reference, ':', 2)
               ELSE split_part(reference, ':', 1) END FROM sandbox_processor_records
               WHERE kind = 'charge' AND status = 'succeeded' GROUP BY 1 HAVING count(*) > 1) doubled`,
            ),
          ).toBe(0);
          // Each subscription renewed at most once per period: no two cycle orders for the same period start.
          expect(
            await count(
              `SELECT count(*) AS n FROM (SELECT subscription_id, created_at FROM orders
               WHERE billing_reason = 'subscription_cycle' GROUP BY 1, 2 HAVING count(*) > 1) doubled`,
            ),
          ).toBe(0);
          const renewals = await count(`SELECT count(*) AS n FROM orders WHERE billing_reason = 'subscription_cycle'`);
          expect(renewals).toBeGreaterThan(0);
          // Every acknowledged refund succeeded, once at the processor.
          const refundRows = await db('refunds').whereIn('id', refunds).select('id', 'status');
          expect(refundRows.length).toBe(refunds.length);
          expect(refundRows.filter((row: { status: string }) => row.status !== 'succeeded')).toEqual([]);
          expect(await count(`SELECT count(*) AS n FROM sandbox_processor_records WHERE kind = 'refund'`)).toBe(
            await count(`SELECT count(*) AS n FROM refunds WHERE status = 'succeeded'`),
          );
          // Every event reached the receiver. A second delivery of an event needs a second claim of it: the killed
          // daemon's claims are retaken, and so are every daemon's on each move of the clock, since a claim's lease
          // is counted on the daemon's clock (simulated here), and what a daemon had in flight or sent but not yet
          // written then goes out again. So no event reached the receiver more times than it was claimed.
          const events = (await db('webhook_events').select('id', 'status', 'attempts')) as Array<{
            id: string;
            status: string;
            attempts: number | string;
          }>;
          const receipts = new Map<string, number>();
          for (const delivery of receiver.received) receipts.set(delivery.id, (receipts.get(delivery.id) ?? 0) + 1);
          expect(events.filter((event) => event.status !== 'succeeded')).toEqual([]);
          expect(events.filter((event) => !receipts.has(event.id))).toEqual([]);
          expect(
            events
              .filter((event) => receipts.get(event.id)! > Number(event.attempts))
              .map((event) => ({ id: event.id, attempts: Number(event.attempts), received: receipts.get(event.id) })),
          ).toEqual([]);
          const duplicates = receiver.received.length - receipts.size;
          // No claim or lease is left held.
          expect(
            await count(
              `SELECT count(*) AS n FROM webhook_events WHERE claimed_until IS NOT NULL AND status = 'pending'`,
            ),
          ).toBe(0);
          expect(await count(`SELECT count(*) AS n FROM scheduled_jobs WHERE claimed_by IS NOT NULL`)).toBe(0);
          console.info(
            `multi-daemon: ${acknowledged.length} purchases (${acknowledged.filter((row) => row.recurring).length} subscriptions), ` +
              `${refunds.length} refunds, ${advances} month advances, ${renewals} renewals, ${events.length} events, ${duplicates} redelivered`,
          );
        } finally {
          await db.destroy();
        }
      } finally {
        for (const child of children) {
          if (!child) continue;
          child.kill('SIGKILL');
          await child;
        }
        await receiver.close();
        for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
        await database.drop();
      }
    },
    300_000,
  );
});
