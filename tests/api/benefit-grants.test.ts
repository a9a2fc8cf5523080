import { validateEvent } from '@polar-sh/sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { DAY, SECOND } from '../../src/core/kernel/clock.js';
import { createProduct } from '../helpers/catalog.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { advanceAndDrain, createEndpoint, webhookSuite } from '../helpers/webhooks.js';

const suite = webhookSuite();

const GRANT_EVENTS = [
  'benefit_grant.created',
  'benefit_grant.updated',
  'benefit_grant.revoked',
  'benefit_grant.cycled',
  'customer.state_changed',
];

interface Shop {
  daemon: TestDaemon;
  merchant: Merchant;
  receiver: Receiver;
  secret: string;
  custom: { id: string };
  keys: { id: string };
}

async function shop(): Promise<Shop> {
  const daemon = suite.daemon;
  const merchant = await createMerchant(daemon);
  const receiver = await suite.receiver();
  const endpoint = await createEndpoint(merchant, receiver.url, GRANT_EVENTS);
  const custom = await merchant.api.post('/v1/benefits/', {
    type: 'custom',
    description: 'Private Slack',
    properties: { note: 'Join at example.com' },
  });
  const keys = await merchant.api.post('/v1/benefits/', {
    type: 'license_keys',
    description: 'App license',
    properties: { prefix: 'APP', expires: { ttl: 1, timeframe: 'year' }, activations: null, limit_usage: 10 },
  });
  expect(custom.status, custom.text).toBe(201);
  expect(keys.status, keys.text).toBe(201);
  return { daemon, merchant, receiver, secret: endpoint.secret, custom: custom.json, keys: keys.json };
}

async function productWith(s: Shop, benefitIds: string[], recurring: 'month' | null = null) {
  const product = await createProduct(s.merchant, { recurring_interval: recurring });
  const attached = await s.merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: benefitIds });
  expect(attached.status, attached.text).toBe(200);
  return product;
}

/**
 * Runs the grant jobs due now and delivers their events: `customer.state_changed` is held a second per customer
 * (Polar's debounce), and deliveries keep their order, so the clock moves past that.
 */
async function settle(s: Shop): Promise<void> {
  await s.daemon.core.scheduler.drain();
  await advanceAndDrain(s.daemon, 2 * SECOND);
}

/**
 * Every delivery of the endpoint so far, verified and parsed by the SDK's validateEvent (which compares the
 * signature's time with the wall clock: a test that moved the clock by days reads the raw payloads instead).
 */
function events(s: Shop, type: string, verify = true) {
  return s.receiver.of(type).map((delivery) => {
    if (!verify) return { parsed: null, raw: delivery.json.data as any };
    const event = validateEvent(delivery.body, delivery.headers, s.secret) as { type: string; data: any };
    expect(event.type).toBe(type);
    return { parsed: event.data, raw: delivery.json.data as any };
  });
}

async function grantsOf(s: Shop, query: Record<string, string>) {
  const response = await s.merchant.api.get('/v1/benefit-grants/', { query });
  expect(response.status, response.text).toBe(200);
  return response.json.items as any[];
}

describe('benefit grants follow the money', () => {
  it('grants a one-time purchase its benefits, and a refund with revoke_benefits revokes them', async () => {
    const s = await shop();
    const product = await productWith(s, [s.custom.id, s.keys.id]);
    const bought = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);

    const grants = await grantsOf(s, { customer_id: bought.customerId });
    expect(grants).toHaveLength(2);
    for (const grant of grants)
      expect(grant).toMatchObject({ is_granted: true, is_revoked: false, order_id: bought.order.id });
    const keyGrant = grants.find((grant) => grant.benefit_id === s.keys.id)!;
    expect(keyGrant.properties).toMatchObject({ license_key_id: expect.any(String), display_key: /^\*\*\*\*-/ });
    const created = events(s, 'benefit_grant.created');
    expect(created.map((event) => event.parsed.benefitId).sort()).toEqual([s.custom.id, s.keys.id].sort());
    const state = events(s, 'customer.state_changed').at(-1)!;
    expect(state.parsed.grantedBenefits.map((g: any) => g.benefitId).sort()).toEqual([s.custom.id, s.keys.id].sort());
    const fromApi = await s.merchant.api.get(`/v1/customers/${bought.customerId}/state`);
    expect(fromApi.json.granted_benefits).toHaveLength(2);

    // The key: the benefit's prefix, a year of validity, and it validates publicly.
    const key = await s.merchant.api.get(`/v1/license-keys/${keyGrant.properties.license_key_id}`);
    expect(key.json).toMatchObject({ status: 'granted', limit_usage: 10, customer_id: bought.customerId });
    expect(key.json.key).toMatch(/^APP-[0-9A-F-]{36}$/);
    expect(new Date(key.json.expires_at).getTime() - s.daemon.clock.now().getTime()).toBeGreaterThan(364 * DAY);
    const validate = (body: Record<string, unknown> = {}) =>
      s.merchant.api.post('/v1/customer-portal/license-keys/validate', {
        key: key.json.key,
        organization_id: s.merchant.organization.id,
        ...body,
      });
    expect((await validate()).json).toMatchObject({ status: 'granted', validations: 1, activation: null });

    // A second purchase of the same product is a second holder: its own grants, its own key.
    const again = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);
    expect(await grantsOf(s, { customer_id: again.customerId })).toHaveLength(2);

    const refund = await s.merchant.api.post('/v1/refunds/', {
      order_id: bought.order.id,
      amount: bought.order.net_amount,
      reason: 'customer_request',
      revoke_benefits: true,
    });
    expect(refund.status, refund.text).toBe(201);
    await settle(s);
    const revoked = await grantsOf(s, { customer_id: bought.customerId });
    for (const grant of revoked) expect(grant).toMatchObject({ is_granted: false, is_revoked: true });
    expect(events(s, 'benefit_grant.revoked').map((event) => event.parsed.customerId)).toEqual([
      bought.customerId,
      bought.customerId,
    ]);
    const dead = await validate();
    expect(dead.status).toBe(404);
    expect(dead.json).toEqual({ error: 'ResourceNotFound', detail: 'License key is no longer active.' });
    expect((await s.merchant.api.get(`/v1/license-keys/${keyGrant.properties.license_key_id}`)).json.status).toBe(
      'revoked',
    );
    // The other buyer keeps theirs.
    expect((await grantsOf(s, { customer_id: again.customerId })).every((grant) => grant.is_granted)).toBe(true);
    // Running the jobs again changes nothing.
    await settle(s);
    expect(events(s, 'benefit_grant.revoked')).toHaveLength(2);
  });

  it('grants a subscription while active and revokes it when revoked', async () => {
    const s = await shop();
    const product = await productWith(s, [s.custom.id], 'month');
    const bought = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);
    const [grant] = await grantsOf(s, { customer_id: bought.customerId });
    expect(grant).toMatchObject({ subscription_id: bought.subscriptionId, order_id: null, is_granted: true });

    const revoke = await s.merchant.api.call('DELETE', `/v1/subscriptions/${bought.subscriptionId}`);
    expect(revoke.status, revoke.text).toBe(200);
    await settle(s);
    expect((await grantsOf(s, { customer_id: bought.customerId }))[0]).toMatchObject({ is_revoked: true });
    const revoked = events(s, 'benefit_grant.revoked');
    expect(revoked.map((event) => event.parsed.id)).toEqual([grant.id]);
    expect(revoked[0]!.parsed.benefit.properties.note).toBe('Join at example.com');
    expect(events(s, 'customer.state_changed').at(-1)!.parsed.grantedBenefits).toEqual([]);
  });

  it('follows a product’s benefits: added ones granted to every holder, removed ones revoked', async () => {
    const s = await shop();
    const product = await productWith(s, [s.custom.id]);
    const first = await purchase(s.daemon, s.merchant, product.id);
    const second = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);

    const added = await s.merchant.api.post(`/v1/products/${product.id}/benefits`, {
      benefits: [s.custom.id, s.keys.id],
    });
    expect(added.status, added.text).toBe(200);
    await settle(s);
    for (const buyer of [first, second]) {
      const grants = await grantsOf(s, { customer_id: buyer.customerId, is_granted: 'true' });
      expect(grants.map((grant) => grant.benefit_id).sort()).toEqual([s.custom.id, s.keys.id].sort());
    }
    const ofKeys = await s.merchant.api.get(`/v1/benefits/${s.keys.id}/grants`);
    expect(ofKeys.json.items).toHaveLength(2);

    expect((await s.merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [s.keys.id] })).status).toBe(
      200,
    );
    await settle(s);
    for (const buyer of [first, second]) {
      const live = await grantsOf(s, { customer_id: buyer.customerId, is_granted: 'true' });
      expect(live.map((grant) => grant.benefit_id)).toEqual([s.keys.id]);
    }
    expect(events(s, 'benefit_grant.revoked').map((event) => event.parsed.benefitId)).toEqual([
      s.custom.id,
      s.custom.id,
    ]);
  });

  it('updates grants when the benefit’s properties change, and revokes them when it is deleted', async () => {
    const s = await shop();
    const product = await productWith(s, [s.keys.id]);
    const bought = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);
    const [grant] = await grantsOf(s, { customer_id: bought.customerId });

    const updated = await s.merchant.api.call('PATCH', `/v1/benefits/${s.keys.id}`, {
      body: {
        type: 'license_keys',
        properties: { prefix: 'APP', activations: { limit: 3, enable_customer_admin: true }, limit_usage: 20 },
      },
    });
    expect(updated.status, updated.text).toBe(200);
    await settle(s);
    const [event] = events(s, 'benefit_grant.updated');
    expect(event!.parsed).toMatchObject({
      id: grant.id,
      previousProperties: { licenseKeyId: grant.properties.license_key_id, displayKey: grant.properties.display_key },
    });
    const key = await s.merchant.api.get(`/v1/license-keys/${grant.properties.license_key_id}`);
    expect(key.json).toMatchObject({ limit_activations: 3, limit_usage: 20 });

    // Taken off the product and deleted before the background jobs run: revoked once.
    expect((await s.merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [] })).status).toBe(200);
    expect((await s.merchant.api.call('DELETE', `/v1/benefits/${s.keys.id}`)).status).toBe(204);
    await settle(s);
    expect((await grantsOf(s, { customer_id: bought.customerId }))[0]).toMatchObject({ is_revoked: true });
    expect(events(s, 'benefit_grant.revoked')).toHaveLength(1);
  });

  // Last: it moves the shared daemon's clock by a month, past what validateEvent accepts of a signature's time.
  it('keeps a subscription canceled at period end granted until the period ends', async () => {
    const s = await shop();
    const product = await productWith(s, [s.custom.id], 'month');
    const bought = await purchase(s.daemon, s.merchant, product.id);
    await settle(s);
    const cancel = await s.merchant.api.call('PATCH', `/v1/subscriptions/${bought.subscriptionId}`, {
      body: { cancel_at_period_end: true },
    });
    expect(cancel.status, cancel.text).toBe(200);
    await settle(s);
    expect((await grantsOf(s, { customer_id: bought.customerId }))[0]).toMatchObject({ is_granted: true });

    s.daemon.clock.advance(32 * DAY);
    await settle(s);
    expect((await grantsOf(s, { customer_id: bought.customerId }))[0]).toMatchObject({ is_revoked: true });
    expect(events(s, 'benefit_grant.revoked', false).map((event) => event.raw.subscription_id)).toEqual([
      bought.subscriptionId,
    ]);
  });
});
