import { afterAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { DAY, HOUR } from '../../src/core/kernel/clock.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { startTestDaemon, TEST_SECRET, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createEndpoint, WEBHOOK_TEST_CONFIG } from '../helpers/webhooks.js';

const admin = { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } };
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

function clockOf(daemon: TestDaemon) {
  const client = new TestClient(daemon.url);
  return {
    show: () => client.get('/api/admin/clock', admin),
    move: (body: unknown) => client.post('/api/admin/clock', body, admin),
  };
}

describe('the simulated clock', () => {
  it('answers 404 under the system clock, and 401 without the admin token', async () => {
    const daemon = await startTestDaemon();
    try {
      const clock = clockOf(daemon);
      expect((await clock.show()).status).toBe(404);
      expect((await clock.move({ advance_seconds: 60 })).status).toBe(404);
      expect((await new TestClient(daemon.url).get('/api/admin/clock')).status).toBe(401);
    } finally {
      await daemon.stop();
    }
  });

  it('moves only forward, refuses bad input, and survives a restart', async () => {
    const first = await startTestDaemon({ clock: 'simulated' });
    let second: TestDaemon | undefined;
    try {
      const clock = clockOf(first);
      const shown = await clock.show();
      expect(shown.status).toBe(200);
      expect(shown.json.simulated).toBe(true);
      const start = new Date(shown.json.now).getTime();
      // It stands still between moves.
      expect((await clock.show()).json.now).toBe(shown.json.now);

      const moved = await clock.move({ advance_seconds: 3600 });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.json).toEqual({ now: new Date(start + HOUR).toISOString() });
      const target = '2099-01-01T00:00:00.000Z';
      expect((await clock.move({ to: target })).json).toEqual({ now: target });

      const back = await clock.move({ to: '2098-12-31T23:59:59Z' });
      expect(back.status).toBe(409);
      expect(back.json).toEqual({
        code: 'CLOCK_CANNOT_GO_BACK',
        message: `The simulated clock only moves forward: 2098-12-31T23:59:59.000Z is before ${target}`,
      });
      for (const body of [{}, { advance_seconds: -1 }, { advance_seconds: 1, to: target }, { to: 'tomorrow' }])
        expect((await clock.move(body)).status, JSON.stringify(body)).toBe(400);
      expect((await clock.show()).json.now).toBe(target);

      await first.close();
      second = await startTestDaemon({ clock: 'simulated', databaseUrl: first.database.url });
      expect((await clockOf(second).show()).json).toEqual({ now: target, simulated: true });
    } finally {
      await second?.close();
      await first.close();
      await first.database.drop();
    }
  });

  it('does the work due on the way in time order before answering: checkouts expire at their own times', async () => {
    const daemon = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, clock: 'simulated' });
    try {
      const clock = clockOf(daemon);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const merchant = await createMerchant(daemon);
      await createEndpoint(merchant, receiver.url, ['checkout.expired']);
      const product = await createProduct(merchant);
      const early = await createCheckout(merchant, [product.id]);
      await clock.move({ advance_seconds: 3600 });
      const late = await createCheckout(merchant, [product.id]);
      const expiresAt = async (id: string) => (await merchant.api.get(`/v1/checkouts/${id}`)).json.expires_at as string;
      const [earlyAt, lateAt] = [await expiresAt(early.id), await expiresAt(late.id)];

      const moved = await clock.move({ advance_seconds: (2 * DAY) / 1000 });
      expect(moved.status, moved.text).toBe(200);
      // Delivered before the answer, each stamped with its own due time.
      expect(
        receiver.of('checkout.expired').map((delivery) => [delivery.json.data.id, delivery.json.timestamp]),
      ).toEqual([
        [early.id, earlyAt],
        [late.id, lateAt],
      ]);
      // The signature's timestamp is wall time: receivers check it against their own clock (Standard Webhooks allows
      // five minutes), and the simulated time, two days ahead, would be refused as a replay.
      for (const delivery of receiver.of('checkout.expired')) {
        expect(Math.abs(delivery.timestamp - Date.now() / 1000)).toBeLessThan(300);
      }
    } finally {
      await daemon.stop();
    }
  });

  it.runIf(testDialect === 'postgres')('PostgreSQL: every daemon on the database sees the same time', async () => {
    const database = await createTestDatabase();
    const daemons = await Promise.all(
      [0, 1].map(() => startTestDaemon({ clock: 'simulated', databaseUrl: database.url })),
    );
    try {
      const [a, b] = daemons as [TestDaemon, TestDaemon];
      const moved = await clockOf(a).move({ advance_seconds: 86_400 });
      expect(await eventually(async () => (await clockOf(b).show()).json.now, moved.json.now)).toBe(moved.json.now);
    } finally {
      await Promise.all(daemons.map((daemon) => daemon.close()));
      await database.drop();
    }
  });
});
