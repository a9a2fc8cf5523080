import { validateEvent, WebhookVerificationError } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOUR, SECOND } from '../../src/core/kernel/clock.js';
import { retryDelayMs, WEBHOOK_RETRY } from '../../src/core/webhooks/delivery.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { signedFor } from '../helpers/webhook-receiver.js';
import {
  advanceAndDrain,
  createEndpoint,
  emit,
  emitAll,
  startWebhookDaemon,
  webhookSuite,
} from '../helpers/webhooks.js';

const suite = webhookSuite();
const { receiver, drain } = suite;
let daemon: TestDaemon;
beforeAll(() => {
  daemon = suite.daemon;
});
const MAX_BACKOFF = WEBHOOK_RETRY.maxBackoffMs;

describe('webhook deliveries from real routes', () => {
  it('signs every delivery so standardwebhooks and validateEvent both accept it; only subscribed types arrive', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver();
    const types = ['product.created', 'benefit.created', 'organization.updated', 'customer.created'];
    const endpoint = await createEndpoint(merchant, target.url, types);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{44}$/);

    expect(
      (
        await merchant.api.post('/v1/products/', {
          name: 'E-book',
          prices: [{ amount_type: 'fixed', price_amount: 1500, price_currency: 'usd' }],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await merchant.api.post('/v1/benefits/', {
          type: 'custom',
          description: 'Community',
          properties: { note: 'Join' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, {
          body: { website: 'https://shop.example' },
        })
      ).status,
    ).toBe(200);
    expect((await merchant.api.post('/v1/customers/', { email: uniqueEmail('buyer') })).status).toBe(201);
    await drain();

    // customer.state_changed was written too, but this endpoint did not subscribe to it.
    expect(target.received.map((delivery) => delivery.json.type).sort()).toEqual([...types].sort());
    for (const delivery of target.received) {
      expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers)).toEqual(delivery.json);
      const event = validateEvent(delivery.body, delivery.headers, endpoint.secret) as {
        type: string;
        data: { id: string };
      };
      expect(event.type).toBe(delivery.json.type);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.timestamp).toBe(Math.floor(daemon.clock.now().getTime() / 1000));
    }
    const product = target.of('product.created')[0]!;
    expect(product.json.data.organization_id).toBe(merchant.organization.id);
    // A wrong secret is refused with the spec's message.
    expect(() => validateEvent(product.body, product.headers, 'whsec_wrong')).toThrow(WebhookVerificationError);
    expect(() =>
      new Webhook(endpoint.secret).verify(product.body, { ...product.headers, 'webhook-id': 'other' }),
    ).toThrow('No matching signature found');
  });
});

describe('retries and failures', () => {
  it('retries on the backoff schedule with a stable webhook-id and a fresh timestamp per attempt', async () => {
    const merchant = await createMerchant(daemon);
    let failures = 2;
    const target = await receiver(() => (failures-- > 0 ? { status: 503, body: 'busy' } : { status: 204 }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'p1' });
    await drain();
    expect(target.received).toHaveLength(1);
    // Not due before the shortest jittered delay, due after the longest.
    await advanceAndDrain(daemon, retryDelayMs(1, () => 0) - 1);
    expect(target.received).toHaveLength(1);
    await advanceAndDrain(
      daemon,
      retryDelayMs(1, () => 1),
    );
    expect(target.received).toHaveLength(2);
    await advanceAndDrain(
      daemon,
      retryDelayMs(2, () => 1),
    );
    expect(target.received).toHaveLength(3);
    await advanceAndDrain(daemon, MAX_BACKOFF);
    expect(target.received).toHaveLength(3);

    const [first, second, third] = target.received;
    expect(new Set([first!.id, second!.id, third!.id]).size).toBe(1);
    expect(first!.timestamp).toBeLessThan(second!.timestamp);
    expect(second!.timestamp).toBeLessThan(third!.timestamp);
    for (const delivery of target.received)
      expect(signedFor(delivery, endpoint.secret)).toEqual({ standard: true, polar: true });

    const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id } });
    expect(log.status).toBe(200);
    expect(log.json.items.map((item: { http_code: number }) => item.http_code)).toEqual([204, 503, 503]);
    expect(log.json.items[2]).toMatchObject({
      succeeded: false,
      response: 'busy',
      attempt: 1,
      webhook_endpoint_id: endpoint.id,
    });
    expect(log.json.items[0].webhook_event).toMatchObject({
      id: first!.id,
      succeeded: true,
      status: 'succeeded',
      attempts: 3,
      type: 'product.created',
      payload: first!.body,
    });
    const failed = await merchant.api.get('/v1/webhooks/deliveries', {
      query: { endpoint_id: endpoint.id, succeeded: 'false' },
    });
    expect(failed.json.pagination.total_count).toBe(2);
    const fives = await merchant.api.get('/v1/webhooks/deliveries', {
      query: { endpoint_id: endpoint.id, http_code_class: '5xx', event_type: 'product.created' },
    });
    expect(fives.json.items).toHaveLength(2);
  });

  it('gives up after 10 attempts', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver(() => ({ status: 500 }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'p-doomed' });
    await drain();
    await advanceAndDrain(daemon, MAX_BACKOFF, 12);
    expect(target.received).toHaveLength(WEBHOOK_RETRY.maxAttempts);
    const event = (await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).first())!;
    expect(event.status).toBe('failed');
    // One failed event does not disable an endpoint.
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${endpoint.id}`)).json.enabled).toBe(true);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const merchant = await createMerchant(daemon);
    const elsewhere = await receiver();
    const target = await receiver(() => ({ status: 301, headers: { location: elsewhere.url } }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'p2' });
    await drain();
    expect(target.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id } });
    expect(log.json.items[0]).toMatchObject({ succeeded: false, http_code: 301 });
    expect(log.json.items[0].webhook_event.status).toBe('pending');
  });

  it("searches the log's responses with ?query= ignoring case, % and _ taken literally, on both databases", async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver((delivery) => ({
      status: 200,
      body: delivery.json.data.id === 'a' ? 'Stored AS Order_42' : 'stored as order-42',
    }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    await emitAll(daemon, merchant.organization.id, [
      { type: 'product.created', data: { id: 'a' } },
      { type: 'product.created', data: { id: 'b' } },
    ]);
    await drain();
    const found = async (query: string) =>
      (
        await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id, query } })
      ).json.items.map((item: { response: string }) => item.response);
    expect(await found('order_42')).toEqual(['Stored AS Order_42']);
    expect((await found('STORED AS')).sort()).toEqual(['Stored AS Order_42', 'stored as order-42']);
    expect(await found('order%42')).toEqual([]);
  });

  it('disables the endpoint on 410 Gone and skips what was waiting for it', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver(() => ({ status: 410 }));
    const endpoint = await createEndpoint(merchant, target.url, ['order.created', 'product.created']);
    // About one customer, so the second waits for the first's answer and is still waiting when the endpoint goes.
    await emitAll(daemon, merchant.organization.id, [
      { type: 'order.created', data: { id: 'p3', customer_id: 'cus_gone' } },
      { type: 'order.created', data: { id: 'p4', customer_id: 'cus_gone' } },
    ]);
    await drain();
    expect(target.received).toHaveLength(1);
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${endpoint.id}`)).json.enabled).toBe(false);
    const statuses = (await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).orderBy('seq')).map(
      (row: { status: string }) => row.status,
    );
    expect(statuses).toEqual(['failed', 'skipped']);
    // Disabled endpoints get nothing new.
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'p5' });
    await advanceAndDrain(daemon, MAX_BACKOFF);
    expect(target.received).toHaveLength(1);
  });

  it('disables an endpoint whose last 10 events all failed, and mails its owners and admins', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver(() => ({ status: 500 }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    for (let i = 0; i < WEBHOOK_RETRY.failureThreshold; i++)
      await emit(daemon, merchant.organization.id, 'product.created', { id: `dead-${i}` });
    await drain();
    await advanceAndDrain(daemon, MAX_BACKOFF, WEBHOOK_RETRY.failureThreshold * WEBHOOK_RETRY.maxAttempts + 5);
    expect(target.received).toHaveLength(WEBHOOK_RETRY.failureThreshold * WEBHOOK_RETRY.maxAttempts);
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${endpoint.id}`)).json.enabled).toBe(false);
    const mails = await daemon.core.mail.list({ kind: 'webhook-endpoint-disabled', to: merchant.owner.email });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Webhook endpoint disabled for Merchant');
  });

  it('counts an attempt that outlasts the timeout as failed', async () => {
    const quick = await startWebhookDaemon({ webhooks: { allowPrivateUrls: true, timeoutMs: 200 } });
    try {
      const merchant = await createMerchant(quick);
      const target = await receiver(() => 'hang');
      const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
      await emit(quick, merchant.organization.id, 'product.created', { id: 'slow' });
      await quick.core.webhooks.drain();
      const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id } });
      expect(log.json.items[0]).toMatchObject({
        succeeded: false,
        http_code: null,
        response: 'timed out after 200 ms',
      });
      expect(log.json.items[0].webhook_event).toMatchObject({ status: 'pending', attempts: 1 });
    } finally {
      await quick.stop();
    }
  });
});

describe('ordering, redelivery, rotation, coalescing', () => {
  it("keeps a customer's order: a later event about them waits while an earlier one is retried", async () => {
    const merchant = await createMerchant(daemon);
    let failFirst = 3;
    const target = await receiver((delivery) =>
      delivery.json.data.id === 'first' && failFirst-- > 0 ? { status: 500 } : { status: 200 },
    );
    await createEndpoint(merchant, target.url, ['subscription.updated']);
    // One transaction, one millisecond: the outbox sequence still orders them.
    await emitAll(
      daemon,
      merchant.organization.id,
      ['first', 'second', 'third'].map((id) => ({
        type: 'subscription.updated',
        data: { id, customer_id: 'cus_fifo' },
      })),
    );
    await drain();
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['first']);
    await advanceAndDrain(daemon, MAX_BACKOFF, 4);
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual([
      'first',
      'first',
      'first',
      'first',
      'second',
      'third',
    ]);
  });

  it('redelivers an event with the same webhook-id, even after it succeeded', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'again' });
    await drain();
    const [original] = target.received;
    const redeliver = await merchant.api.post(`/v1/webhooks/events/${original!.id}/redeliver`);
    expect(redeliver.status).toBe(202);
    await drain();
    expect(target.received).toHaveLength(2);
    expect(target.received[1]!.id).toBe(original!.id);
    expect(target.received[1]!.body).toBe(original!.body);
    expect(signedFor(target.received[1]!, endpoint.secret)).toEqual({ standard: true, polar: true });
    expect((await merchant.api.post('/v1/webhooks/events/00000000-0000-7000-8000-000000000000/redeliver')).status).toBe(
      404,
    );
    const stranger = await createMerchant(daemon);
    expect((await stranger.api.post(`/v1/webhooks/events/${original!.id}/redeliver`)).status).toBe(404);
  });

  it('rotates the secret: both secrets verify for 24 hours, then only the new one', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);
    const rotated = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${endpoint.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(endpoint.secret);
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${endpoint.id}`)).json.secret).toBe(rotated.json.secret);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'during' });
    await drain();
    expect(signedFor(target.received[0]!, endpoint.secret)).toEqual({ standard: true, polar: true });
    expect(signedFor(target.received[0]!, rotated.json.secret)).toEqual({ standard: true, polar: true });
    daemon.clock.advance(24 * HOUR + SECOND);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'after' });
    await drain();
    expect(signedFor(target.received[1]!, endpoint.secret)).toEqual({ standard: false, polar: false });
    expect(signedFor(target.received[1]!, rotated.json.secret)).toEqual({ standard: true, polar: true });
  });

  it('coalesces customer.state_changed per customer within a second: the latest state is sent once', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver();
    await createEndpoint(merchant, target.url, ['customer.state_changed']);
    for (const [customer, version] of [
      ['c1', 1],
      ['c2', 1],
      ['c1', 2],
      ['c1', 3],
    ] as const) {
      await emit(daemon, merchant.organization.id, 'customer.state_changed', { id: customer, version });
      daemon.clock.advance(100);
    }
    await drain();
    expect(target.received).toHaveLength(0);
    await advanceAndDrain(daemon, SECOND);
    expect(target.received.map((delivery) => [delivery.json.data.id, delivery.json.data.version])).toEqual([
      ['c1', 3],
      ['c2', 1],
    ]);
    // A change after the window closed is a new delivery.
    await emit(daemon, merchant.organization.id, 'customer.state_changed', { id: 'c1', version: 4 });
    await advanceAndDrain(daemon, SECOND);
    expect(target.received.map((delivery) => delivery.json.data.version)).toEqual([3, 1, 4]);
  });

  it('archives payloads after 90 days', async () => {
    const merchant = await createMerchant(daemon);
    const target = await receiver();
    await createEndpoint(merchant, target.url, ['product.created']);
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'old' });
    await drain();
    const id = target.received[0]!.id;
    daemon.clock.advance(91 * 24 * HOUR);
    await daemon.core.webhooks.prune();
    const event = await merchant.api.get(`/v1/webhooks/events/${id}`);
    expect(event.json).toMatchObject({ payload: null, is_archived: true });
    expect((await merchant.api.post(`/v1/webhooks/events/${id}/redeliver`)).status).toBe(404);
  });
});
