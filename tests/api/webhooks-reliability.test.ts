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
      const endpoint = await createEndpoint(merchant, receiver.url, ['product.created']);
      await emitProducts(daemon, merchant.organization.id, 1000);
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
      // Every product went out under one webhook-id, however often it was sent.
      const idsByProduct = new Map<string, Set<string>>();
      for (const delivery of receiver.received) {
        const product = String(delivery.json.data.id);
        idsByProduct.set(product, (idsByProduct.get(product) ?? new Set()).add(delivery.id));
      }
      expect([...idsByProduct.values()].every((ids) => ids.size === 1)).toBe(true);
      // FIFO: the first arrival of each product follows the outbox order.
      const firstSeen = [
        ...new Map(receiver.received.map((delivery) => [delivery.json.data.id, delivery] as const)).keys(),
      ];
      expect(firstSeen).toEqual(Array.from({ length: 1000 }, (_, i) => `product-${i}`));
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
        await until(() => receiver.hanging.length === 1);
        expect(receiver.received).toHaveLength(1);
        child.kill('SIGKILL');
        await child;
        // The receiver did its work and answers 2xx, but the daemon is gone and never records it.
        receiver.hanging.shift()!.writeHead(200).end('ok');

        child = (await start()).process;
        await until(() => receiver.received.length >= 6);
        const ids = receiver.received.map((delivery) => delivery.id);
        expect(ids).toHaveLength(6);
        expect(new Set(ids).size).toBe(5);
        expect(ids[1]).toBe(ids[0]);
        expect(receiver.received.map((delivery) => delivery.json.data.name)).toEqual([
          'Product 0',
          'Product 0',
          'Product 1',
          'Product 2',
          'Product 3',
          'Product 4',
        ]);
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
