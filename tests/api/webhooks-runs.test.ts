import { beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY } from '../../src/core/webhooks/delivery.js';
import { eventsRepository } from '../../src/core/webhooks/events-repository.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { advanceAndDrain, createEndpoint, emitAll, until, webhookSuite } from '../helpers/webhooks.js';

// The worker claims the due events of a customer (an ordering key) and sends them in order in that customer's lane;
// these pin down what a failure in the middle of a lane, and a requeue while an attempt is in flight, do to it. The
// events are about one customer (`order.updated` with a `customer_id`), so they keep their order.

const suite = webhookSuite();
const { receiver, drain } = suite;
let daemon: TestDaemon;
beforeAll(() => {
  daemon = suite.daemon;
});

async function eventsOf(endpointId: string) {
  return (await daemon.core.db('webhook_events').where({ endpoint_id: endpointId }).orderBy('seq')).map(
    (row: Record<string, unknown>) => ({
      id: String((row.payload as string).match(/"id":"([^"]+)"/)![1]),
      status: row.status,
      attempts: Number(row.attempts),
      claimed: row.claimed_until !== null,
    }),
  );
}

/** An order event about the one customer these tests use, labelled by its `id`. */
const about = (id: string) => ({ type: 'order.updated', data: { id, customer_id: 'cus_runs' } });

describe('runs of events to one endpoint', () => {
  it('stops a run at a failed event: what follows is not sent before it succeeds, and waits unclaimed with no attempt counted', async () => {
    const merchant = await createMerchant(daemon);
    let failSecond = 1;
    const target = await receiver((delivery) =>
      delivery.json.data.id === 'second' && failSecond-- > 0 ? { status: 503 } : { status: 200 },
    );
    const endpoint = await createEndpoint(merchant, target.url, ['order.updated']);
    // One transaction: the four events are due together and claimed as one run.
    await emitAll(daemon, merchant.organization.id, ['first', 'second', 'third', 'fourth'].map(about));
    await drain();
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['first', 'second']);
    expect(await eventsOf(endpoint.id)).toEqual([
      { id: 'first', status: 'succeeded', attempts: 1, claimed: false },
      { id: 'second', status: 'pending', attempts: 1, claimed: false },
      { id: 'third', status: 'pending', attempts: 0, claimed: false },
      { id: 'fourth', status: 'pending', attempts: 0, claimed: false },
    ]);

    await advanceAndDrain(daemon, WEBHOOK_RETRY.maxBackoffMs);
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual([
      'first',
      'second',
      'second',
      'third',
      'fourth',
    ]);
    expect((await eventsOf(endpoint.id)).map((event) => [event.id, event.status, event.attempts])).toEqual([
      ['first', 'succeeded', 1],
      ['second', 'succeeded', 2],
      ['third', 'succeeded', 1],
      ['fourth', 'succeeded', 1],
    ]);
    const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id, limit: '10' } });
    const attempts = log.json.items.map(
      (item: { attempt: number; succeeded: boolean; webhook_event: { payload: string } }) =>
        `${JSON.parse(item.webhook_event.payload).data.id} ${item.attempt} ${item.succeeded}`,
    );
    expect(attempts.sort()).toEqual([
      'first 1 true',
      'fourth 1 true',
      'second 1 false',
      'second 2 true',
      'third 1 true',
    ]);
  });

  it('records an outcome only for the claim it belongs to: an event requeued while its attempt is in flight is sent again', async () => {
    const merchant = await createMerchant(daemon);
    let hangFirst = true;
    const target = await receiver(() => (hangFirst ? ((hangFirst = false), 'hang') : { status: 200 }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.updated']);
    await emitAll(daemon, merchant.organization.id, [{ type: 'product.updated', data: { id: 'requeued' } }]);
    // The daemon's own worker sends it; the receiver holds the answer back.
    await until(() => target.hanging.length === 1);
    const [event] = await eventsOf(endpoint.id);
    expect(event).toMatchObject({ status: 'pending', attempts: 1, claimed: true });
    const id = target.received[0]!.id;
    await eventsRepository(daemon.core.db).requeue(id, daemon.clock.now());
    target.hanging.shift()!.writeHead(200).end('ok');
    await drain();

    // The first answer belonged to the claim the requeue replaced: not recorded as the event's success.
    expect(target.received.map((delivery) => delivery.id)).toEqual([id, id]);
    // Attempts go on counting across the requeue: the resend is attempt 2.
    expect(await eventsOf(endpoint.id)).toEqual([{ id: 'requeued', status: 'succeeded', attempts: 2, claimed: false }]);
    const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id } });
    expect(log.json.items).toHaveLength(2);
  });

  it('claims each endpoint on its own: a retrying endpoint does not hold back another', async () => {
    const merchant = await createMerchant(daemon);
    const failing = await receiver(() => ({ status: 500 }));
    const healthy = await receiver();
    await createEndpoint(merchant, failing.url, ['order.updated']);
    await createEndpoint(merchant, healthy.url, ['order.updated']);
    await emitAll(daemon, merchant.organization.id, ['a', 'b', 'c'].map(about));
    await drain();
    expect(failing.received.map((delivery) => delivery.json.data.id)).toEqual(['a']);
    expect(healthy.received.map((delivery) => delivery.json.data.id)).toEqual(['a', 'b', 'c']);
  });

  it("claims an endpoint's next events while an attempt is in flight, sends them after it, and gives them back unsent if it fails", async () => {
    const merchant = await createMerchant(daemon);
    const hang = new Set(['a', 'd']);
    const target = await receiver((delivery) =>
      hang.delete(String(delivery.json.data.id)) ? 'hang' : { status: 200 },
    );
    const endpoint = await createEndpoint(merchant, target.url, ['order.updated']);
    const sendWhileFirstHangs = async (first: string, then: string[]) => {
      await emitAll(daemon, merchant.organization.id, [about(first)]);
      await until(() => target.hanging.length === 1);
      await emitAll(daemon, merchant.organization.id, then.map(about));
      // Claimed by the worker's next round although the event before them is still in flight.
      await until(
        async () =>
          (await eventsOf(endpoint.id)).filter((event) => then.includes(event.id) && event.claimed).length ===
          then.length,
      );
      expect((await eventsOf(endpoint.id)).filter((event) => then.includes(event.id))).toEqual(
        then.map((id) => ({ id, status: 'pending', attempts: 1, claimed: true })),
      );
    };

    await sendWhileFirstHangs('a', ['b', 'c']);
    target.hanging.shift()!.writeHead(200).end('ok');
    await drain();
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['a', 'b', 'c']);

    await sendWhileFirstHangs('d', ['e', 'f']);
    target.hanging.shift()!.writeHead(503).end('no');
    await drain();
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['a', 'b', 'c', 'd']);
    expect((await eventsOf(endpoint.id)).slice(3)).toEqual([
      { id: 'd', status: 'pending', attempts: 1, claimed: false },
      { id: 'e', status: 'pending', attempts: 0, claimed: false },
      { id: 'f', status: 'pending', attempts: 0, claimed: false },
    ]);
    await advanceAndDrain(daemon, WEBHOOK_RETRY.maxBackoffMs);
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['a', 'b', 'c', 'd', 'd', 'e', 'f']);
  });
});
