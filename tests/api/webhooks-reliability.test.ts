import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { WEBHOOK_RETRY } from '../../src/core/webhooks/delivery.js';
import { TEST_SECRET, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { createMerchant } from '../helpers/v1.js';
import { signedFor, startReceiver } from '../helpers/webhook-receiver.js';
import {
  WEBHOOK_TEST_CONFIG,
  advanceAndDrain,
  createEndpoint,
  emitAll,
  startWebhookDaemon,
  until,
} from '../helpers/webhooks.js';
import { TILL_BIN, freePort } from '../cli/till.js';

async function emitProducts(daemon: TestDaemon, organizationId: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      type: 'product.created',
      data: { id: `product-${start + i}` },
    }));
    await emitAll(daemon, organizationId, batch);
  }
}

/** Orders about ten customers, in turns: `order-i` is about `cus-(i % 10)`. */
async function emitOrders(daemon: TestDaemon, organizationId: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      type: 'order.created',
      data: { id: `order-${start + i}`, customer_id: `cus-${(start + i) % 10}` },
    }));
    await emitAll(daemon, organizationId, batch);
  }
}

describe('webhook delivery under failure', () => {
  it('delivers 1,000 events to a receiver failing 30 % at random: none lost, duplicates only with the same webhook-id', async () => {
    const daemon = await startWebhookDaemon();
    // At most 5 refusals per event, so none exhausts its 10 attempts by chance (0.3^10 × 1,000 ≈ 0.6 %).
    const refusals = new Map<string, number>();
    const receiver = await startReceiver((delivery) => {
      const refused = refusals.get(delivery.id) ?? 0;
      if (refused < 5 && Math.random() < 0.3) {
        refusals.set(delivery.id, refused + 1);
        return { status: 500 };
      }
      return { status: 200 };
    });
    try {
      const merchant = await createMerchant(daemon);
      const endpoint = await createEndpoint(merchant, receiver.url, ['order.created']);
      await emitOrders(daemon, merchant.organization.id, 1000);
      await daemon.core.webhooks.drain();
      const delivered = () => new Set(receiver.received.map((delivery) => delivery.json.data.id)).size;
      for (let round = 0; round < 2000; round++) {
        const pending = await daemon.core
          .db('webhook_events')
          .where({ endpoint_id: endpoint.id, status: 'pending' })
          .count({ n: '*' });
        if (Number(pending[0]!.n) === 0) break;
        await advanceAndDrain(daemon, WEBHOOK_RETRY.maxBackoffMs);
      }
      expect(delivered()).toBe(1000);
      const statuses = await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).select('status');
      expect(statuses.every((row: { status: string }) => row.status === 'succeeded')).toBe(true);
      // Every order went out under one webhook-id, however often it was sent.
      const idsByOrder = new Map<string, Set<string>>();
      for (const delivery of receiver.received) {
        const order = String(delivery.json.data.id);
        idsByOrder.set(order, (idsByOrder.get(order) ?? new Set()).add(delivery.id));
      }
      expect([...idsByOrder.values()].every((ids) => ids.size === 1)).toBe(true);
      // Per customer, every arrival (retries included) follows the outbox order: an order is sent only after the one
      // before it, about the same customer, was accepted.
      const numberOf = (delivery: (typeof receiver.received)[number]) =>
        Number(String(delivery.json.data.id).slice('order-'.length));
      for (let customer = 0; customer < 10; customer++) {
        const arrivals = receiver.received
          .filter((delivery) => delivery.json.data.customer_id === `cus-${customer}`)
          .map(numberOf);
        expect(arrivals.every((n, i) => i === 0 || n >= arrivals[i - 1]!)).toBe(true);
        expect([...new Set(arrivals)]).toEqual(Array.from({ length: 100 }, (_, i) => i * 10 + customer));
      }
      expect(receiver.received.slice(0, 50).every((delivery) => signedFor(delivery, endpoint.secret).standard)).toBe(
        true,
      );
    } finally {
      await daemon.stop();
      await receiver.close();
    }
  }, 300_000);

  it.runIf(testDialect === 'postgres')(
    'PostgreSQL: two daemons deliver 1,000 events to two endpoints, none twice',
    async () => {
      const database = await createTestDatabase();
      const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
      const a = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, databaseUrl: database.url }, { clock });
      const b = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, databaseUrl: database.url }, { clock });
      const receiver = await startReceiver();
      try {
        const merchant = await createMerchant(a);
        for (let i = 0; i < 2; i++)
          await createEndpoint(merchant, `${receiver.url}?endpoint=${i}`, ['product.created']);
        await emitProducts(a, merchant.organization.id, 1000);
        for (let round = 0; round < 10_000 && receiver.received.length < 2000; round++) {
          await Promise.all([a.core.webhooks.drain(), b.core.webhooks.drain()]);
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect(receiver.received).toHaveLength(2000);
        expect(new Set(receiver.received.map((delivery) => delivery.id)).size).toBe(2000);
        // One attempt per event between the two daemons: none was claimed twice.
        const byDaemon = await a.core.db('webhook_deliveries').count({ n: '*' });
        expect(Number(byDaemon[0]!.n)).toBe(2000);
      } finally {
        await receiver.close();
        await Promise.all([a.close(), b.close()]);
        await database.drop();
      }
    },
    300_000,
  );

  it.runIf(testDialect === 'sqlite')(
    'SQLite: a daemon killed mid-delivery loses nothing; the interrupted event comes again with its webhook-id',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'till-webhook-crash-'));
      const port = await freePort();
      const env = {
        PATH: process.env.PATH!,
        TILL_DATA_DIR: dataDir,
        TILL_DATABASE_URL: `sqlite:${join(dataDir, 'till.db')}`,
        TILL_PORT: String(port),
        TILL_SECRET: TEST_SECRET,
        TILL_BCRYPT_COST: '4',
        TILL_RATE_LIMIT: 'off',
        TILL_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      };
      const url = `http://127.0.0.1:${port}`;
      // Wrapped: an execa child is a thenable, and an async function returning it would wait for it to exit.
      const start = async (): Promise<{ process: ResultPromise }> => {
        const child = execa(process.execPath, [TILL_BIN, 'daemon', 'run'], {
          env,
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
        });
        await until(async () => {
          const answer = await request(`${url}/api/auth/ok`, { headersTimeout: 1000, bodyTimeout: 1000 }).catch(
            () => null,
          );
          await answer?.body.dump();
          return answer?.statusCode === 200;
        });
        return { process: child };
      };
      let hangFirst = true;
      const receiver = await startReceiver(() => (hangFirst ? ((hangFirst = false), 'hang') : { status: 200 }));
      let child = (await start()).process;
      try {
        const merchant = await createMerchant({ url } as TestDaemon);
        await createEndpoint(merchant, receiver.url, ['product.created']);
        for (let i = 0; i < 5; i++) {
          const created = await merchant.api.post('/v1/products/', {
            name: `Product ${i}`,
            prices: [{ amount_type: 'fixed', price_amount: 100 + i, price_currency: 'usd' }],
          });
          expect(created.status).toBe(201);
        }
        // Products are about no customer: the first hangs, the other four go out beside it.
        await until(() => receiver.hanging.length === 1 && receiver.received.length === 5);
        expect(receiver.received).toHaveLength(5);
        const interrupted = receiver.received.find((delivery) => delivery.json.data.name === 'Product 0')!;
        child.kill('SIGKILL');
        await child;
        // The receiver did its work and answers 2xx, but the daemon is gone and never records it.
        receiver.hanging.shift()!.writeHead(200).end('ok');

        child = (await start()).process;
        await until(() => receiver.received.filter((delivery) => delivery.id === interrupted.id).length === 2);
        // The interrupted event came again under its webhook-id; the others at most once more (their success may
        // not have been written before the kill), each under its own.
        expect(receiver.received.filter((delivery) => delivery.id === interrupted.id)).toHaveLength(2);
        const namesById = new Map<string, Set<unknown>>();
        for (const delivery of receiver.received)
          namesById.set(delivery.id, (namesById.get(delivery.id) ?? new Set()).add(delivery.json.data.name));
        expect(namesById.size).toBe(5);
        expect([...namesById.values()].every((names) => names.size === 1)).toBe(true);
        expect(new Set(receiver.received.map((delivery) => delivery.json.data.name))).toEqual(
          new Set(['Product 0', 'Product 1', 'Product 2', 'Product 3', 'Product 4']),
        );
      } finally {
        child.kill('SIGTERM');
        await child;
        await receiver.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
