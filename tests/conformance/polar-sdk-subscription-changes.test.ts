import { Subscription$inboundSchema } from '@polar-sh/sdk/models/components/subscription.js';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { patch, plan, subscribe } from '../helpers/subscription-changes.js';
import { createMerchant } from '../helpers/v1.js';
import { createEndpoint, webhookSuite } from '../helpers/webhooks.js';

const suite = webhookSuite();
// SDK 0.47 predates these two event types; their payloads are checked with its Subscription schema instead.
const NEWER_THAN_SDK = new Set(['subscription.paused', 'subscription.resumed']);

describe('plan changes, pause and resume: webhooks @polar-sh/sdk 0.47 accepts', () => {
  it('an invoiced change, a pause and a resume arrive signed, in order, in Polar’s shapes', async () => {
    const daemon = suite.daemon;
    const merchant = await createMerchant(daemon);
    const target = await suite.receiver();
    const types = [
      'subscription.updated',
      'subscription.paused',
      'subscription.resumed',
      'order.created',
      'order.updated',
      'order.paid',
    ];
    const endpoint = await createEndpoint(merchant, target.url, types);
    const basic = await plan(merchant, 'Basic', 1000);
    const pro = await plan(merchant, 'Pro', 3000);
    const subscription = await subscribe(daemon, merchant, basic.id);
    await suite.drain();
    const before = target.received.length;

    const path = `/v1/subscriptions/${subscription.id}`;
    expect((await patch(merchant.api, path, { product_id: pro.id, proration_behavior: 'invoice' })).status).toBe(200);
    expect((await patch(merchant.api, path, { pause_at_period_end: false })).status).toBe(200);
    expect((await patch(merchant.api, path, { resume: true })).status).toBe(200);
    await suite.drain();

    const deliveries = target.received.slice(before);
    expect(deliveries.map((delivery) => delivery.json.type)).toEqual([
      'subscription.updated',
      'order.created',
      'order.updated',
      'order.paid',
      'subscription.updated',
      'subscription.paused',
      'subscription.updated',
      'subscription.resumed',
      'order.created',
      'order.updated',
      'order.paid',
    ]);
    for (const delivery of deliveries) {
      if (NEWER_THAN_SDK.has(delivery.json.type)) {
        new Webhook(endpoint.secret).verify(delivery.body, delivery.headers);
        expect(Subscription$inboundSchema.parse(delivery.json.data).id).toBe(subscription.id);
      } else {
        const event = validateEvent(delivery.body, delivery.headers, endpoint.secret) as { type: string };
        expect(event.type).toBe(delivery.json.type);
      }
    }
    const orders = deliveries.filter((delivery) => delivery.json.type === 'order.paid');
    expect(orders.map((delivery) => [delivery.json.data.billing_reason, delivery.json.data.total_amount])).toEqual([
      ['subscription_update', 2000],
      ['subscription_cycle', 3000],
    ]);
  });
});
