import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { createLogger } from '../../src/daemon/logger.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createEndpoint, emit, WEBHOOK_TEST_CONFIG } from '../helpers/webhooks.js';

// The daemon's own log, read back: the delivery worker's lines about an attempt name the request that caused it.
const lines: Array<Record<string, unknown>> = [];
let daemon: TestDaemon;
let receiver: Receiver;
beforeAll(async () => {
  daemon = await startTestDaemon(WEBHOOK_TEST_CONFIG, {
    clock: new ManualClock(Math.floor(Date.now() / 1000) * 1000),
    logger: createLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
  });
  receiver = await startReceiver(() => ({ status: 500, body: 'down' }));
});
afterAll(async () => {
  await daemon?.stop();
  await receiver?.close();
});

const attemptLines = (eventId: string) => lines.filter((line) => line.eventId === eventId);

describe('request ids on webhook events', () => {
  it('reach the webhook events fanned out from a request, and the worker logs their attempts under them', async () => {
    const merchant = await createMerchant(daemon);
    const endpoint = await createEndpoint(merchant, receiver.url, ['product.created']);
    // A second endpoint gets its own event, with the same request id.
    const other = await createEndpoint(merchant, `${receiver.url}/other`, ['product.created']);
    const created = await merchant.api.post(
      '/v1/products/',
      { name: 'Traced', prices: [{ amount_type: 'fixed', price_amount: 500, price_currency: 'usd' }] },
      { headers: { 'x-request-id': 'trace-hook-1' } },
    );
    expect(created.status).toBe(201);
    // Another request's commit may start the round that records this one's attempt: that request's id must not leak.
    await merchant.api.post(
      '/v1/products/',
      { name: 'Other', prices: [{ amount_type: 'fixed', price_amount: 500, price_currency: 'usd' }] },
      { headers: { 'x-request-id': 'trace-hook-2' } },
    );
    await daemon.core.webhooks.drain();

    const events = await daemon.core
      .db('webhook_events')
      .whereIn('endpoint_id', [endpoint.id, other.id])
      .select('id', 'endpoint_id', 'request_id', 'payload');
    const traced = events.filter((event) => JSON.parse(event.payload as string).data.id === created.json.id);
    expect(traced.map((event) => event.endpoint_id).sort()).toEqual([endpoint.id, other.id].sort());
    for (const event of traced) {
      expect(event.request_id).toBe('trace-hook-1');
      const logged = attemptLines(event.id as string);
      expect(logged).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: 'webhook not delivered; will retry',
          requestId: 'trace-hook-1',
          endpointId: event.endpoint_id,
          attempt: 1,
          httpCode: 500,
        }),
      ]);
    }
    const second = events.filter((event) => event.request_id === 'trace-hook-2');
    expect(second).toHaveLength(2);
    for (const event of second)
      expect(attemptLines(event.id as string)).toEqual([expect.objectContaining({ requestId: 'trace-hook-2' })]);
  });

  it('leave events written outside a request without one, and their lines without a requestId', async () => {
    const merchant = await createMerchant(daemon);
    const endpoint = await createEndpoint(merchant, receiver.url, ['benefit.created']);
    await emit(daemon, merchant.organization.id, 'benefit.created', { id: 'untraced-1' });
    await daemon.core.webhooks.drain();
    const event = await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).first();
    expect(event.request_id).toBeNull();
    const logged = attemptLines(event.id as string);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ message: 'webhook not delivered; will retry' });
    expect(logged[0]!.requestId).toBeUndefined();
  });
});
