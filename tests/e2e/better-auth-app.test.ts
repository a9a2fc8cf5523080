import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_CHANGED_WINDOW_MS } from '../../src/core/webhooks/dispatcher.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/webhooks/schemas.js';
import { createProduct } from '../helpers/catalog.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { advanceAndDrain, createEndpoint, startWebhookDaemon } from '../helpers/webhooks.js';

// examples/better-auth-app, unchanged, run as its own Node process against a Till daemon: Better Auth 1.7.25 with
// @polar-sh/better-auth 1.8.4's checkout, portal, usage and webhooks plugins, its Polar client given Till's URL, an
// organization access token and a webhook endpoint's secret, nothing else.

const APP = fileURLToPath(new URL('../../examples/better-auth-app/server.mjs', import.meta.url));
const PASSWORD = 'correct horse battery staple';
/**
 * Types Till sends (as Polar does) that @polar-sh/sdk 0.47's validateEvent does not know: it throws "Unknown event
 * type" and the plugin answers 400, so the app's endpoint must not subscribe to them (both READMEs say so).
 */
const UNKNOWN_TO_SDK = new Set([
  'subscription.cycled',
  'subscription.paused',
  'subscription.resumed',
  'discount.created',
  'discount.updated',
  'discount.deleted',
]);
/** What the plugin's calls need, as examples/better-auth-app/README.md lists them. */
const APP_SCOPES = [
  'customers:read',
  'customers:write',
  'checkouts:write',
  'customer_sessions:write',
  'subscriptions:read',
  'events:write',
];

interface Received {
  payloads: Array<{ type: string; timestamp: string }>;
  paidOrders: Array<{ orderId: string; userId: string | null; productId: string | null; totalAmount: number }>;
}

/** Starts the example app on port 0 and resolves with its URL, read from the line it prints once listening. */
async function startApp(env: Record<string, string>): Promise<{ url: string; process: ChildProcess; log: string[] }> {
  const child = spawn(process.execPath, [APP], { env: { ...process.env, PORT: '0', ...env }, stdio: 'pipe' });
  const log: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the app exited (${code}): ${log.join('')}`)));
  });
  return { url, process: child, log };
}

/** Grants run in the scheduler; then the daemon's clock passes customer.state_changed's coalescing window and
 * everything due is delivered (a few seconds, well inside the verifier's five-minute tolerance). */
async function settle(daemon: TestDaemon): Promise<void> {
  await daemon.core.scheduler.drain();
  await advanceAndDrain(daemon, STATE_CHANGED_WINDOW_MS + 1);
}

/** Every delivery Till made succeeded (the plugin answers 400 to a bad signature or a payload it cannot parse), and
 * each reached the app's onPayload. */
async function expectAllDelivered(merchant: Merchant, received: Received): Promise<void> {
  const deliveries = await merchant.api.get('/v1/webhooks/deliveries', { query: { limit: '100' } });
  const items = (deliveries.json as { items: Array<{ succeeded: boolean; response: string | null }> }).items;
  expect(items.filter((delivery) => !delivery.succeeded)).toEqual([]);
  expect(received.payloads).toHaveLength(items.length);
}

describe('examples/better-auth-app: Better Auth with Polar’s plugin, pointed at Till', () => {
  let daemon: TestDaemon;
  let merchant: Merchant;
  let app: Awaited<ReturnType<typeof startApp>>;
  let product: { id: string };
  let meter: { id: string };
  let benefit: { id: string };
  let creditBenefit: { id: string };

  beforeAll(async () => {
    daemon = await startWebhookDaemon();
    // The owner sets the shop up with a full token; the app gets only the scopes its README lists.
    merchant = await createMerchant(daemon, { name: 'Better Auth Shop' });
    const createdMeter = await merchant.api.post('/v1/meters/', {
      name: 'API calls',
      filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }] },
      aggregation: { func: 'count' },
    });
    expect(createdMeter.status, createdMeter.text).toBe(201);
    meter = createdMeter.json as { id: string };
    // A monthly plan with a fee, a metered price on the meter and two benefits: a note and 100 API calls a month.
    product = await createProduct(merchant, {
      name: 'Pro',
      recurring_interval: 'month',
      prices: [
        { amount_type: 'fixed', price_amount: 2000, price_currency: 'usd' },
        { amount_type: 'metered_unit', meter_id: meter.id, unit_amount: '0.5', price_currency: 'usd' },
      ],
    });
    const credits = await merchant.api.post('/v1/benefits/', {
      type: 'meter_credit',
      description: '100 API calls a month',
      properties: { units: 100, rollover: false, meter_id: meter.id },
    });
    expect(credits.status, credits.text).toBe(201);
    creditBenefit = credits.json as { id: string };
    const createdBenefit = await merchant.api.post('/v1/benefits/', {
      type: 'custom',
      description: 'Priority support',
      properties: { note: 'Write to support@example.com' },
    });
    expect(createdBenefit.status, createdBenefit.text).toBe(201);
    benefit = createdBenefit.json as { id: string };
    const attached = await merchant.api.post(`/v1/products/${product.id}/benefits`, {
      benefits: [benefit.id, creditBenefit.id],
    });
    expect(attached.status, attached.text).toBe(200);
    // The catalog's own events go out now, to no endpoint yet; the app's endpoint hears what its users do.
    await daemon.core.webhooks.drain();
    // Every event type the plugin can take, so its validateEvent parses every payload this flow produces. The
    // endpoint's URL is the app's, known once the app listens, and the app needs the secret to start: the URL is
    // set once it does.
    const endpoint = await createEndpoint(
      merchant,
      'http://127.0.0.1:1/placeholder',
      WEBHOOK_EVENT_TYPES.filter((type) => !UNKNOWN_TO_SDK.has(type)),
    );
    const appToken = await merchant.api.post('/v1/organization-access-tokens/', {
      organization_id: merchant.organization.id,
      comment: 'better-auth-app',
      scopes: APP_SCOPES,
    });
    expect(appToken.status, appToken.text).toBe(201);
    app = await startApp({
      POLAR_SERVER_URL: daemon.url,
      POLAR_ACCESS_TOKEN: (appToken.json as { token: string }).token,
      POLAR_WEBHOOK_SECRET: endpoint.secret,
      POLAR_PRODUCT_ID: product.id,
      BETTER_AUTH_SECRET: 'a-better-auth-secret-of-at-least-32-characters',
    });
    const moved = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, {
      body: { url: `${app.url}/api/auth/polar/webhooks` },
    });
    expect(moved.status, moved.text).toBe(200);
  });

  afterAll(async () => {
    if (app?.process.exitCode === null) {
      app.process.kill();
      await once(app.process, 'exit');
    }
    await daemon?.stop();
  });

  it('signs up, buys in the sandbox, hears the webhooks, reads state, meters usage and opens the portal', async () => {
    const browser = new TestClient(app.url, { origin: app.url });
    const appWebhooks = async () => (await browser.get('/demo/webhooks')).json as Received;

    // Sign-up: the plugin creates the Till customer and gives it the Better Auth user id as its external id.
    const email = uniqueEmail('ba-app');
    const signUp = await browser.post('/api/auth/sign-up/email', { email, password: PASSWORD, name: 'Ada Lovelace' });
    expect(signUp.status, signUp.text).toBe(200);
    const userId = (signUp.json as { user: { id: string } }).user.id;
    const customer = await merchant.api.get(`/v1/customers/external/${encodeURIComponent(userId)}`);
    expect(customer.status, customer.text).toBe(200);
    expect(customer.json).toMatchObject({ email, name: 'Ada Lovelace', external_id: userId });
    const customerId = (customer.json as { id: string }).id;

    // Only signed-in users may check out (authenticatedUsersOnly).
    const anonymous = await new TestClient(app.url, { origin: app.url }).post('/api/auth/checkout', { slug: 'pro' });
    expect(anonymous.status, anonymous.text).toBe(401);

    // Checkout through the plugin, by the slug the app maps to the product; the URL is Till's hosted checkout.
    const started = await browser.post('/api/auth/checkout', {
      slug: 'pro',
      referenceId: 'team-42',
      redirect: false,
    });
    expect(started.status, started.text).toBe(200);
    const { url: checkoutUrl, redirect } = started.json as { url: string; redirect: boolean };
    expect(redirect).toBe(false);
    const clientSecret = new RegExp(`^${daemon.url}/checkout/([^/?]+)$`).exec(checkoutUrl)?.[1];
    expect(clientSecret, checkoutUrl).toBeDefined();
    const page = await new TestClient(daemon.url).get(new URL(checkoutUrl).pathname);
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    const publicCheckout = await new TestClient(daemon.url).get(`/v1/checkouts/client/${clientSecret}`);
    const session = await merchant.api.get(`/v1/checkouts/${(publicCheckout.json as { id: string }).id}`);
    expect(session.json).toMatchObject({ customer_id: customerId, external_customer_id: userId, status: 'open' });
    expect((session.json as { success_url: string }).success_url).toMatch(
      new RegExp(`^${app.url}/success\\?checkout_id=[0-9a-f-]{36}$`),
    );

    // The buyer pays in Till's sandbox with a test card.
    const paid = await new TestClient(daemon.url).post(`/v1/checkouts/client/${clientSecret}/confirm`, {
      customer_billing_address: { country: 'DE' },
      confirmation_token_id: 'tok_visa',
    });
    expect(paid.status, paid.text).toBe(200);
    const orders = await merchant.api.get('/v1/orders/', { query: { customer_id: customerId } });
    expect((orders.json as { items: unknown[] }).items).toHaveLength(1);
    const order = (
      orders.json as {
        items: Array<{ id: string; total_amount: number; net_amount: number; subscription_id: string }>;
      }
    ).items[0]!;

    // Till delivers (customer.state_changed once its coalescing window has passed, and the customer's later events
    // after it, in order); the plugin verifies each signature and parses each payload with the SDK before the
    // callbacks.
    await settle(daemon);
    const received = await appWebhooks();
    expect(received.paidOrders).toEqual([
      { orderId: order.id, userId, productId: product.id, totalAmount: order.total_amount },
    ]);
    const types = new Set(received.payloads.map((payload) => payload.type));
    for (const type of [
      'customer.created',
      'customer.state_changed',
      'checkout.created',
      'order.created',
      'order.paid',
      'subscription.created',
      'subscription.active',
      'benefit_grant.created',
    ])
      expect(types, type).toContain(type);
    await expectAllDelivered(merchant, received);
    // The same order.paid body signed with another secret is refused by the plugin, and no callback runs.
    const forged = received.payloads.length;
    const body = (await merchant.api.get('/v1/webhooks/deliveries', { query: { limit: '100' } })).json as {
      items: Array<{ webhook_event: { type: string; payload: string } }>;
    };
    const paidBody = body.items.find((delivery) => delivery.webhook_event.type === 'order.paid')!.webhook_event.payload;
    const wrong = new Webhook(Buffer.from('whsec_not-the-endpoint-secret', 'utf-8').toString('base64'));
    const now = new Date();
    const refused = await new TestClient(app.url).post('/api/auth/polar/webhooks', undefined, {
      rawBody: paidBody,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': wrong.sign('msg_forged', now, paidBody),
      },
    });
    expect(refused.status, refused.text).toBe(400);
    expect((await appWebhooks()).payloads).toHaveLength(forged);
    expect((await appWebhooks()).paidOrders).toHaveLength(1);

    // Customer state through the plugin: the subscription just bought.
    const state = await browser.get('/api/auth/customer/state');
    expect(state.status, state.text).toBe(200);
    expect(state.json).toMatchObject({ id: customerId, externalId: userId, email });
    expect((state.json as { activeSubscriptions: Array<{ productId: string }> }).activeSubscriptions).toEqual([
      expect.objectContaining({ productId: product.id, status: 'active', amount: 2000 }),
    ]);

    // The meter_credit benefit credited 100 calls; nothing used yet.
    expect(state.json).toMatchObject({
      grantedBenefits: expect.arrayContaining([
        expect.objectContaining({ benefitId: creditBenefit.id, benefitType: 'meter_credit' }),
      ]),
      activeMeters: [
        expect.objectContaining({ meterId: meter.id, consumedUnits: 0, creditedUnits: 100, balance: 100 }),
      ],
    });

    // Usage through the plugin: three events for this user, counted by the meter against the credits.
    for (const route of ['/a', '/b', '/c']) {
      const ingested = await browser.post('/api/auth/usage/ingest', { event: 'api_call', metadata: { route } });
      expect(ingested.status, ingested.text).toBe(200);
      expect(ingested.json).toEqual({ inserted: 1, duplicates: 0 });
    }
    const meters = await browser.get('/api/auth/usage/meters/list');
    expect(meters.status, meters.text).toBe(200);
    expect((meters.json as { result: { items: unknown[] } }).result.items).toEqual([
      expect.objectContaining({ meterId: meter.id, customerId, consumedUnits: 3, creditedUnits: 100, balance: 97 }),
    ]);
    const stateAfterUsage = await browser.get('/api/auth/customer/state');
    expect(stateAfterUsage.status, stateAfterUsage.text).toBe(200);
    expect(stateAfterUsage.json).toMatchObject({
      activeMeters: [expect.objectContaining({ meterId: meter.id, consumedUnits: 3, creditedUnits: 100, balance: 97 })],
      activeSubscriptions: [
        expect.objectContaining({
          meters: [expect.objectContaining({ meterId: meter.id, consumedUnits: 3, creditedUnits: 100 })],
        }),
      ],
    });

    // The portal: a customer session for this user, at Till's hosted portal.
    const portal = await browser.post('/api/auth/customer/portal', { redirect: false });
    expect(portal.status, portal.text).toBe(200);
    const portalUrl = new URL((portal.json as { url: string }).url);
    const organization = (await merchant.api.get(`/v1/organizations/${merchant.organization.id}`)).json as {
      slug: string;
    };
    expect(portalUrl.origin + portalUrl.pathname).toBe(`${daemon.url}/portal/${organization.slug}`);
    const token = portalUrl.searchParams.get('customer_session_token');
    expect(token).toMatch(/^till_cst_/);
    // The portal trades the token in the URL for a cookie and sends the browser on to the same page without it.
    const customerBrowser = new TestClient(daemon.url);
    const landing = await customerBrowser.get(portalUrl.pathname + portalUrl.search);
    expect(landing.status).toBe(303);
    const location = new URL(String(landing.headers.location), daemon.url);
    expect(location.searchParams.get('customer_session_token')).toBeNull();
    const portalPage = await customerBrowser.get(location.pathname + location.search);
    expect(portalPage.status, portalPage.text.slice(0, 500)).toBe(200);
    expect(portalPage.text).toContain(email);
    expect(portalPage.text).toContain('Pro');
    expect(String(portalPage.headers['content-type'])).toMatch(/^text\/html/);
    // The token in that URL is this customer's portal session.
    const me = await new TestClient(daemon.url, { headers: { authorization: `Bearer ${token}` } }).get(
      '/v1/customer-portal/customers/me',
    );
    expect(me.status, me.text).toBe(200);
    expect(me.json).toMatchObject({ id: customerId, email });

    // The portal plugin's lists, each through a fresh customer session and the SDK's customer-portal calls.
    const subscriptions = await browser.get('/api/auth/customer/subscriptions/list', { query: { active: 'true' } });
    expect(subscriptions.status, subscriptions.text).toBe(200);
    expect((subscriptions.json as { result: { items: unknown[] } }).result.items).toEqual([
      expect.objectContaining({ productId: product.id, status: 'active' }),
    ]);
    const byReference = await browser.get('/api/auth/customer/subscriptions/list', {
      query: { referenceId: 'team-42' },
    });
    expect(byReference.status, byReference.text).toBe(200);
    expect((byReference.json as { result: { items: unknown[] } }).result.items).toEqual([
      expect.objectContaining({ productId: product.id, metadata: { referenceId: 'team-42' } }),
    ]);
    const ordersList = await browser.get('/api/auth/customer/orders/list', {
      query: { productBillingType: 'recurring' },
    });
    expect(ordersList.status, ordersList.text).toBe(200);
    expect((ordersList.json as { result: { items: unknown[] } }).result.items).toEqual([
      expect.objectContaining({ id: order.id, productId: product.id }),
    ]);
    const benefits = await browser.get('/api/auth/customer/benefits/list');
    expect(benefits.status, benefits.text).toBe(200);
    const grants = (benefits.json as { result: { items: Array<{ benefitId: string }> } }).result.items;
    expect(grants.sort((a, b) => (a.benefitId === benefit.id ? -1 : b.benefitId === benefit.id ? 1 : 0))).toEqual([
      expect.objectContaining({ benefitId: benefit.id, customerId, isGranted: true }),
      expect.objectContaining({ benefitId: creditBenefit.id, customerId, isGranted: true }),
    ]);

    // The merchant refunds the order in full, revoking what it granted (the subscription with it): the plugin
    // verifies and parses those webhooks too.
    const refund = await merchant.api.post('/v1/refunds/', {
      order_id: order.id,
      amount: order.net_amount,
      reason: 'customer_request',
      revoke_benefits: true,
    });
    expect(refund.status, refund.text).toBe(201);
    await settle(daemon);
    const after = await appWebhooks();
    const later = new Set(after.payloads.map((payload) => payload.type));
    for (const type of [
      'refund.created',
      'refund.updated',
      'order.updated',
      'order.refunded',
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
      'benefit_grant.revoked',
    ])
      expect(later, type).toContain(type);
    await expectAllDelivered(merchant, after);
    const stateAfter = await browser.get('/api/auth/customer/state');
    expect(stateAfter.status, stateAfter.text).toBe(200);
    expect(stateAfter.json).toMatchObject({ activeSubscriptions: [], grantedBenefits: [] });
  });

  it('subscribes the app to every type Till sends except those @polar-sh/sdk 0.47 cannot parse', () => {
    const secret = 'whsec_a-secret-for-this-check';
    const signer = new Webhook(Buffer.from(secret, 'utf-8').toString('base64'));
    const unknown = WEBHOOK_EVENT_TYPES.filter((type) => {
      const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: {} });
      const id = `msg_${type}`;
      const now = new Date();
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signer.sign(id, now, body),
      };
      try {
        validateEvent(body, headers, secret);
        return false;
      } catch (error) {
        // Known types fail on the empty data; unknown ones fail before, on the type.
        return String(error).includes('Unknown event type');
      }
    });
    expect(unknown).toEqual([...UNKNOWN_TO_SDK]);
  });
});
