import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { WEBHOOK_RETRY } from '../../src/core/webhooks/delivery.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { createMerchant } from '../helpers/v1.js';
import {
  WEBHOOK_TEST_CONFIG,
  advanceAndDrain,
  createEndpoint,
  emitAll,
  until,
  webhookSuite,
} from '../helpers/webhooks.js';

// Issue 20: events about one customer reach an endpoint in commit order, one at a time; everything else goes out in
// parallel up to the endpoint's max_concurrency.

type Reply = { status: number; headers?: Record<string, string> } | 'hold';

interface Arrival {
  id: string;
  label: string;
  customer: string | null;
}

/**
 * A receiver that answers when the test says (`hold`, then `answer`), and checks as it goes what issue 20 promises:
 * no two deliveries about one customer in flight at once (`overlaps`), and the most in flight overall (`peak`).
 */
async function orderedReceiver(reply: (arrival: Arrival) => Reply = () => ({ status: 200 })) {
  const arrivals: Arrival[] = [];
  const held: Array<{ arrival: Arrival; res: ServerResponse }> = [];
  const inFlight = new Map<string, number>();
  const state = { overlaps: 0, current: 0, peak: 0, reply };
  const finish = (arrival: Arrival, res: ServerResponse, status: number, headers: Record<string, string> = {}) => {
    state.current--;
    if (arrival.customer) inFlight.set(arrival.customer, inFlight.get(arrival.customer)! - 1);
    res.writeHead(status, headers).end('');
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { id: string; customer_id?: string };
      };
      const customer = body.type.startsWith('customer.') ? body.data.id : (body.data.customer_id ?? null);
      const arrival = { id: String(req.headers['webhook-id']), label: body.data.id, customer };
      arrivals.push(arrival);
      state.current++;
      state.peak = Math.max(state.peak, state.current);
      if (customer) {
        const now = (inFlight.get(customer) ?? 0) + 1;
        inFlight.set(customer, now);
        if (now > 1) state.overlaps++;
      }
      const answer = state.reply(arrival);
      if (answer === 'hold') held.push({ arrival, res });
      else finish(arrival, res, answer.status, answer.headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    held,
    state,
    labels: (customer?: string | null) =>
      arrivals.filter((arrival) => customer === undefined || arrival.customer === customer).map((a) => a.label),
    /** Answers the held delivery with this label. */
    answer(label: string, status = 200): void {
      const index = held.findIndex((entry) => entry.arrival.label === label);
      const [entry] = held.splice(index, 1);
      finish(entry!.arrival, entry!.res, status);
    },
    async close(): Promise<void> {
      for (const entry of held.splice(0)) entry.res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type OrderedReceiver = Awaited<ReturnType<typeof orderedReceiver>>;

const order = (id: string, customer: string) => ({ type: 'order.updated', data: { id, customer_id: customer } });
const product = (id: string) => ({ type: 'product.updated', data: { id } });

const suite = webhookSuite();
let daemon: TestDaemon;
const receivers: OrderedReceiver[] = [];
beforeAll(() => {
  daemon = suite.daemon;
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});
async function receiver(...args: Parameters<typeof orderedReceiver>): Promise<OrderedReceiver> {
  const started = await orderedReceiver(...args);
  receivers.push(started);
  return started;
}

describe('per-customer order, parallel otherwise', () => {
  it("keeps other customers' events flowing while one customer's receiver is slow, and never reorders or overlaps that customer", async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver((arrival) => (arrival.label === 'a1' ? 'hold' : { status: 200 }));
    await createEndpoint(merchant, target.url, ['order.updated', 'product.updated']);
    await emitAll(daemon, merchant.organization.id, [
      order('a1', 'cus_a'),
      order('a2', 'cus_a'),
      order('b1', 'cus_b'),
      product('p1'),
      order('a3', 'cus_a'),
      order('b2', 'cus_b'),
      order('c1', 'cus_c'),
      product('p2'),
    ]);
    // a1 is held; everything not about cus_a goes out beside it.
    await until(() => target.labels().length === 6);
    expect(target.labels('cus_a')).toEqual(['a1']);
    expect(target.labels('cus_b')).toEqual(['b1', 'b2']);
    expect(new Set(target.labels())).toEqual(new Set(['a1', 'b1', 'p1', 'b2', 'c1', 'p2']));

    // a1 fails: a2 and a3 wait for its retry, which succeeds, then follow in order.
    target.answer('a1', 503);
    await suite.drain();
    expect(target.labels('cus_a')).toEqual(['a1']);
    target.state.reply = () => ({ status: 200 });
    await advanceAndDrain(daemon, WEBHOOK_RETRY.maxBackoffMs);
    expect(target.labels('cus_a')).toEqual(['a1', 'a1', 'a2', 'a3']);
    expect(target.state.overlaps).toBe(0);
  });

  it("sends a customer's next event after the one before it failed for good", async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver((arrival) => (arrival.label === 'd1' ? { status: 500 } : { status: 200 }));
    await createEndpoint(merchant, target.url, ['order.updated']);
    await emitAll(daemon, merchant.organization.id, [order('d1', 'cus_d'), order('d2', 'cus_d'), order('e1', 'cus_e')]);
    await suite.drain();
    expect(target.labels('cus_d')).toEqual(['d1']);
    expect(target.labels('cus_e')).toEqual(['e1']);
    await advanceAndDrain(daemon, WEBHOOK_RETRY.maxBackoffMs, WEBHOOK_RETRY.maxAttempts);
    expect(target.labels('cus_d')).toEqual([...Array(WEBHOOK_RETRY.maxAttempts).fill('d1'), 'd2']);
    const statuses = await daemon.core
      .db('webhook_events')
      .whereIn('ordering_key', ['cus_d', 'cus_e'])
      .orderBy('seq')
      .select('ordering_key', 'status');
    expect(statuses).toEqual([
      { ordering_key: 'cus_d', status: 'failed' },
      { ordering_key: 'cus_d', status: 'succeeded' },
      { ordering_key: 'cus_e', status: 'succeeded' },
    ]);
    expect(target.state.overlaps).toBe(0);
  });

  it('has at most max_concurrency deliveries in flight to an endpoint, and takes a changed limit from the next claim', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver(() => 'hold');
    const endpoint = await createEndpoint(merchant, target.url, ['product.updated'], { max_concurrency: 3 });
    const labels = Array.from({ length: 10 }, (_, i) => `q${i}`);
    await emitAll(daemon, merchant.organization.id, labels.map(product));
    await until(() => target.held.length === 3);
    // More rounds claim nothing more into flight while three are held.
    for (let i = 0; i < 3; i++) await daemon.core.webhooks.runOnce();
    expect(target.held).toHaveLength(3);
    for (let answered = 0; answered < 10; answered++) {
      await until(() => target.held.length > 0);
      target.answer(target.held[0]!.arrival.label);
    }
    await suite.drain();
    expect(new Set(target.labels())).toEqual(new Set(labels));
    expect(target.state.peak).toBe(3);

    const widened = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, {
      body: { max_concurrency: 5 },
    });
    expect(widened.json.max_concurrency).toBe(5);
    await emitAll(
      daemon,
      merchant.organization.id,
      labels.map((label) => product(`w${label}`)),
    );
    await until(() => target.held.length === 5);
    for (let i = 0; i < 3; i++) await daemon.core.webhooks.runOnce();
    expect(target.held).toHaveLength(5);
    target.state.reply = () => ({ status: 200 });
    for (const held of [...target.held]) target.answer(held.arrival.label);
    await suite.drain();
    expect(target.labels()).toHaveLength(20);
    expect(target.state.peak).toBe(5);
  });
});

describe('max_concurrency on the endpoint', () => {
  it('defaults to 32, is set on create and update, null goes back to the default, and bad values are a 422', async () => {
    const merchant = await createMerchant(daemon);
    const plain = await createEndpoint(merchant, 'http://127.0.0.1:9/hook', ['order.paid']);
    expect((plain as unknown as { max_concurrency: number }).max_concurrency).toBe(32);
    const set = await createEndpoint(merchant, 'http://127.0.0.1:9/hook', ['order.paid'], { max_concurrency: 4 });
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${set.id}`)).json.max_concurrency).toBe(4);
    const cleared = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${set.id}`, {
      body: { max_concurrency: null },
    });
    expect(cleared.json.max_concurrency).toBe(32);
    for (const bad of [0, 129, 1.5, '8']) {
      const answer = await merchant.api.post('/v1/webhooks/endpoints', {
        url: 'http://127.0.0.1:9/hook',
        format: 'raw',
        events: ['order.paid'],
        max_concurrency: bad,
      });
      expect(answer.status).toBe(422);
      expect(answer.json.detail[0].loc).toEqual(['body', 'max_concurrency']);
    }
  });
});

describe('Retry-After', () => {
  async function nextAttemptAfter(reply: Reply): Promise<number> {
    const merchant = await createMerchant(daemon);
    const target = await receiver(() => reply);
    const endpoint = await createEndpoint(merchant, target.url, ['product.updated']);
    await emitAll(daemon, merchant.organization.id, [product('r')]);
    await suite.drain();
    const row = await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).first();
    expect(row.status).toBe('pending');
    return new Date(row.next_attempt_at).getTime() - daemon.clock.now().getTime();
  }

  it('waits as long as a 429 or 503 asks, in seconds or as an HTTP date, capped at the longest backoff', async () => {
    expect(await nextAttemptAfter({ status: 429, headers: { 'retry-after': '120' } })).toBe(120_000);
    expect(await nextAttemptAfter({ status: 503, headers: { 'retry-after': '7' } })).toBe(7_000);
    const at = new Date(daemon.clock.now().getTime() + 300_000).toUTCString();
    expect(await nextAttemptAfter({ status: 503, headers: { 'retry-after': at } })).toBe(300_000);
    expect(await nextAttemptAfter({ status: 429, headers: { 'retry-after': '86400' } })).toBe(
      WEBHOOK_RETRY.maxBackoffMs,
    );
  });

  it('keeps the backoff schedule for other statuses and for a Retry-After it cannot read', async () => {
    // The first retry waits 2-4 s (2 s·2¹, jittered to 50-100 %).
    for (const reply of [
      { status: 500, headers: { 'retry-after': '600' } },
      { status: 429, headers: { 'retry-after': 'soon' } },
      { status: 503 },
    ]) {
      const wait = await nextAttemptAfter(reply);
      expect(wait).toBeGreaterThanOrEqual(2_000);
      expect(wait).toBeLessThanOrEqual(4_000);
    }
  });
});

describe.runIf(testDialect === 'postgres')('PostgreSQL: several daemons', () => {
  it('two daemons never have two events of one customer in flight at once, and keep each customer in order', async () => {
    const database = await createTestDatabase();
    const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    const a = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, databaseUrl: database.url }, { clock });
    const b = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, databaseUrl: database.url }, { clock });
    // Every answer waits a turn of the event loop, so a second delivery about a customer would overlap the first.
    const target = await receiver(() => 'hold');
    const release = setInterval(() => {
      for (const held of [...target.held]) target.answer(held.arrival.label);
    }, 1);
    try {
      const merchant = await createMerchant(a);
      await createEndpoint(merchant, target.url, ['order.updated']);
      // More than one claim takes of an endpoint (WEBHOOK_RETRY.perEndpoint) in one transaction: while one daemon
      // holds the first claim's events, the other's claim meets the later events of the same customers.
      const events = Array.from({ length: WEBHOOK_RETRY.perEndpoint * 3 }, (_, i) => order(`o${i}`, `cus_${i % 8}`));
      await emitAll(a, merchant.organization.id, events);
      for (let round = 0; round < 10_000 && target.arrivals.length < events.length; round++)
        await Promise.all([a.core.webhooks.drain(), b.core.webhooks.drain()]);
      expect(target.arrivals).toHaveLength(events.length);
      expect(target.state.overlaps).toBe(0);
      for (let customer = 0; customer < 8; customer++)
        expect(target.labels(`cus_${customer}`)).toEqual(
          events.filter((_, i) => i % 8 === customer).map((event) => event.data.id),
        );
    } finally {
      clearInterval(release);
      await Promise.all([a.close(), b.close()]);
      await database.drop();
    }
  }, 300_000);
});
