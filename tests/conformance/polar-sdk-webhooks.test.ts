import { ListResourceWebhookDelivery$inboundSchema } from '@polar-sh/sdk/models/components/listresourcewebhookdelivery.js';
import { WebhookEndpoint$inboundSchema } from '@polar-sh/sdk/models/components/webhookendpoint.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { emit, startWebhookDaemon } from '../helpers/webhooks.js';

describe('@polar-sh/sdk 0.47 webhook operations against Till', () => {
  let daemon: TestDaemon;
  let receiver: Receiver;
  beforeAll(async () => {
    daemon = await startWebhookDaemon();
    let failOnce = true;
    receiver = await startReceiver(() =>
      failOnce ? ((failOnce = false), { status: 500, body: 'try again' }) : { status: 200, body: 'ok' },
    );
  });
  afterAll(async () => {
    await daemon.stop();
    await receiver.close();
  });

  it('creates, lists, gets, updates, rotates, lists deliveries, redelivers and deletes', async () => {
    const { sdk, api, organization } = await createMerchant(daemon);
    const created = await sdk.webhooks.createWebhookEndpoint({
      url: receiver.url,
      format: 'raw',
      events: ['product.created', 'order.paid'],
    });
    expect(created).toMatchObject({
      url: receiver.url,
      format: 'raw',
      enabled: true,
      organizationId: organization.id,
      events: ['product.created', 'order.paid'],
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(
      WebhookEndpoint$inboundSchema.parse((await api.get(`/v1/webhooks/endpoints/${created.id}`)).json).secret,
    ).toBe(created.secret);
    // Till's max_concurrency is on the wire; the SDK parses the endpoint around it.
    const widened = await api.call('PATCH', `/v1/webhooks/endpoints/${created.id}`, { body: { max_concurrency: 8 } });
    expect(widened.json.max_concurrency).toBe(8);
    expect(WebhookEndpoint$inboundSchema.parse(widened.json).id).toBe(created.id);

    const pages = await sdk.webhooks.listWebhookEndpoints({ organizationId: organization.id, limit: 10 });
    expect(pages.result.items.map((item) => item.id)).toEqual([created.id]);
    expect((await sdk.webhooks.getWebhookEndpoint({ id: created.id })).id).toBe(created.id);
    const updated = await sdk.webhooks.updateWebhookEndpoint({
      id: created.id,
      webhookEndpointUpdate: { events: ['product.created'], name: 'catalog' },
    });
    expect(updated).toMatchObject({ events: ['product.created'], name: 'catalog' });
    const rotated = await sdk.webhooks.resetWebhookEndpointSecret({ id: created.id });
    expect(rotated.secret).not.toBe(created.secret);

    await emit(daemon, organization.id, 'product.created', { id: 'sdk-product' });
    await daemon.core.webhooks.drain();
    daemon.clock.advance(60_000);
    await daemon.core.webhooks.drain();
    const deliveries = await sdk.webhooks.listWebhookDeliveries({ endpointId: created.id, succeeded: false });
    expect(deliveries.result.items).toHaveLength(1);
    expect(deliveries.result.items[0]).toMatchObject({ succeeded: false, httpCode: 500, response: 'try again' });
    const all = await sdk.webhooks.listWebhookDeliveries({ endpointId: [created.id], eventType: 'product.created' });
    expect(all.result.items.map((item) => item.succeeded)).toEqual([true, false]);
    const raw = await api.get('/v1/webhooks/deliveries', { query: { endpoint_id: created.id } });
    expect(() => ListResourceWebhookDelivery$inboundSchema.parse(raw.json)).not.toThrow();

    const eventId = all.result.items[0]!.webhookEvent.id;
    await sdk.webhooks.redeliverWebhookEvent({ id: eventId });
    await daemon.core.webhooks.drain();
    expect(receiver.received.filter((delivery) => delivery.id === eventId)).toHaveLength(3);

    await sdk.webhooks.deleteWebhookEndpoint({ id: created.id });
    await expect(sdk.webhooks.getWebhookEndpoint({ id: created.id })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
  });
});
