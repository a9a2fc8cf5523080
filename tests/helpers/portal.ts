import { expect } from 'vitest';
import { createProduct } from './catalog.js';
import type { TestDaemon } from './daemon.js';
import { TestClient } from './http.js';
import { purchase } from './purchases.js';
import { createMerchant, type Merchant } from './v1.js';

/** A shop whose monthly plan grants a custom note and a license key, bought once, with the buyer's portal link. */
export async function portalShop(daemon: TestDaemon, name = 'Portal Shop') {
  const merchant = await createMerchant(daemon, { name });
  const custom = await merchant.api.post('/v1/benefits/', {
    type: 'custom',
    description: 'Private community',
    properties: { note: 'Join us at chat.example.com with code 42' },
  });
  const keys = await merchant.api.post('/v1/benefits/', {
    type: 'license_keys',
    description: 'Desktop app license',
    properties: {
      prefix: 'APP',
      expires: null,
      activations: { limit: 3, enable_customer_admin: true },
      limit_usage: null,
    },
  });
  expect(custom.status, custom.text).toBe(201);
  expect(keys.status, keys.text).toBe(201);
  const product = await createProduct(merchant, { name: 'Studio plan', recurring_interval: 'month' });
  const attached = await merchant.api.post(`/v1/products/${product.id}/benefits`, {
    benefits: [custom.json.id, keys.json.id],
  });
  expect(attached.status, attached.text).toBe(200);
  const bought = await purchase(daemon, merchant, product.id);
  // Grants are durable jobs: run the ones the purchase scheduled.
  await daemon.core.scheduler.drain();
  const session = await portalSession(merchant, bought.customerId);
  return { merchant, product, ...bought, ...session };
}

/** A customer session through the merchant API, as a merchant's site creates one to send its customer along. */
export async function portalSession(merchant: Merchant, customerId: string) {
  const response = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
  expect(response.status, response.text).toBe(201);
  return { portalUrl: response.json.customer_portal_url as string, token: response.json.token as string };
}

/** Opens a portal link as a browser without JavaScript would: the token is traded for the cookie. */
export async function openPortal(daemon: TestDaemon, portalUrl: string) {
  const client = new TestClient(daemon.url);
  const url = new URL(portalUrl);
  const traded = await client.get(`${url.pathname}${url.search}`);
  return { client, traded, path: url.pathname };
}

/** A portal form POST as the page sends it: form-encoded, from the daemon's own origin. */
export function portalPost(client: TestClient, daemon: TestDaemon, path: string, fields: Record<string, string>) {
  return client.call('POST', path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: daemon.url },
  });
}
