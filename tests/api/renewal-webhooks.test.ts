import { CustomerState$inboundSchema } from '@polar-sh/sdk/models/components/customerstate.js';
import { Order$inboundSchema } from '@polar-sh/sdk/models/components/order.js';
import { Subscription$inboundSchema } from '@polar-sh/sdk/models/components/subscription.js';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { startTestDaemon, TEST_SECRET } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant } from '../helpers/v1.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { createEndpoint, WEBHOOK_TEST_CONFIG } from '../helpers/webhooks.js';
import { createPlan, subscribe } from '../helpers/renewals.js';

const admin = { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } };
const RENEWAL_TYPES = [
  'subscription.updated',
  'subscription.cycled',
  'order.created',
  'order.updated',
  'order.paid',
  'customer.state_changed',
];

describe('the renewal webhook sequence', () => {
  it("is Polar's, in order, every payload parsed by @polar-sh/sdk 0.47 and verified by a receiver", async () => {
    const daemon = await startTestDaemon({ ...WEBHOOK_TEST_CONFIG, clock: 'simulated' });
    const receiver = await startReceiver();
    try {
      const merchant = await createMerchant(daemon);
      const endpoint = await createEndpoint(merchant, receiver.url, RENEWAL_TYPES);
      const plan = await createPlan(merchant, { interval: 'month', amount: 1900 });
      const { subscriptionId } = await subscribe(daemon, merchant, plan.id);
      const clock = new TestClient(daemon.url);
      // Nothing is due yet: moving a minute delivers what the purchase sent, and nothing renews.
      expect((await clock.post('/api/admin/clock', { advance_seconds: 60 }, admin)).status).toBe(200);
      const fromPurchase = receiver.received.length;
      const before = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json;

      const moved = await clock.post('/api/admin/clock', { to: before.current_period_end }, admin);
      expect(moved.status, moved.text).toBe(200);
      // customer.state_changed waits out its one-second coalescing window; the clock answers once it is delivered.
      expect((await clock.post('/api/admin/clock', { advance_seconds: 60 }, admin)).status).toBe(200);
      const renewal = receiver.received.slice(fromPurchase);
      expect(renewal.map((delivery) => delivery.json.type)).toEqual(RENEWAL_TYPES);

      for (const delivery of renewal) {
        // Signed for any Standard Webhooks receiver (wall-clock timestamps, so verify() accepts them).
        expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers)).toEqual(delivery.json);
        const { type, data } = delivery.json as { type: string; data: unknown };
        if (type === 'subscription.cycled') {
          // SDK 0.47 predates this event type; its payload is a Subscription all the same.
          expect(Subscription$inboundSchema.parse(data).id).toBe(subscriptionId);
          continue;
        }
        const event = validateEvent(delivery.body, delivery.headers, endpoint.secret) as { type: string };
        expect(event.type).toBe(type);
        if (type.startsWith('order.')) Order$inboundSchema.parse(data);
        if (type.startsWith('subscription.')) Subscription$inboundSchema.parse(data);
        if (type === 'customer.state_changed') CustomerState$inboundSchema.parse(data);
      }
      const [updated, cycled, created, orderUpdated, paid] = renewal.map((delivery) => delivery.json.data);
      expect(updated).toMatchObject({
        id: subscriptionId,
        status: 'active',
        current_period_start: before.current_period_end,
      });
      expect(cycled).toEqual(updated);
      expect(created).toMatchObject({
        status: 'pending',
        billing_reason: 'subscription_cycle',
        subscription_id: subscriptionId,
        total_amount: 1900,
      });
      expect(orderUpdated).toMatchObject({ id: created.id, status: 'paid' });
      expect(paid).toEqual(orderUpdated);
    } finally {
      await daemon.stop();
      await receiver.close();
    }
  });
});
