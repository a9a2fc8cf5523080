import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/kernel/clock.js';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { openPortal, portalPost, portalShop } from '../helpers/portal.js';

// The hosted customer portal over plain HTTP: what a browser without JavaScript sends and gets.

const daemon = useTestDaemon();

const csp = (headers: Record<string, unknown>) => String(headers['content-security-policy']);

describe('GET /portal/{slug}', () => {
  it('trades the link token for an HttpOnly cookie on the portal path, then shows the purchase and its benefits', async () => {
    const shop = await portalShop(daemon());
    const { client, traded, path } = await openPortal(daemon(), shop.portalUrl);
    expect(traded.status).toBe(303);
    expect(traded.headers.location).toBe(path);
    const cookie = traded.setCookies.find((value) => value.startsWith('till_portal_session='));
    expect(cookie).toMatch(/; Path=\/portal\/[^;]+; HttpOnly; SameSite=Lax/);
    expect(cookie).toContain(`Path=${path}`);

    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(csp(page.headers)).toMatch(/script-src 'nonce-[^']+'/);
    expect(page.text).toContain('Portal Shop');
    expect(page.text).toContain('Studio plan');
    expect(page.text).toContain('Join us at chat.example.com with code 42');
    const keys = await new TestClient(daemon().url, { headers: { authorization: `Bearer ${shop.token}` } }).get(
      '/v1/customer-portal/license-keys/',
    );
    expect(keys.json.items).toHaveLength(1);
    expect(page.text).toContain(`value="${keys.json.items[0].key}"`);
    expect(page.text).toMatch(/Renews \d{4}-\d{2}-\d{2}/);
    expect(page.text).toContain(`${path}/orders/${shop.order.id}/receipt`);
    // The props block the browser hydrates from, and the bundle, under the page's nonce.
    expect(page.text).toContain('<script type="application/json" id="page-props">');
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp(page.headers))![1];
    expect(page.text).toMatch(
      new RegExp(
        `<script type="module" nonce="${nonce.replace(/[+/=]/g, '\\$&')}" src="/assets/portal-[A-Z0-9]+\\.js">`,
      ),
    );
  });

  it('serves the page bundles with a year-long cache, and nothing else under /assets', async () => {
    const shop = await portalShop(daemon());
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    const page = await client.get(path);
    const src = /src="(\/assets\/portal-[A-Z0-9]+\.js)"/.exec(page.text)![1]!;
    const bundle = await new TestClient(daemon().url).get(src);
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toContain('text/javascript');
    expect(bundle.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await new TestClient(daemon().url).get('/assets/manifest.json')).status).toBe(404);
    expect((await new TestClient(daemon().url).get('/assets/..%2Fpackage.json')).status).toBe(404);
  });

  it('without a session, with an unknown token, an expired one or another organization’s, shows a page saying so and no data', async () => {
    const shop = await portalShop(daemon(), 'First Shop');
    const other = await portalShop(daemon(), 'Other Shop');
    const slug = new URL(shop.portalUrl).pathname;
    const anonymous = await new TestClient(daemon().url).get(slug);
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toContain('Sign in from First Shop');

    const unknown = await new TestClient(daemon().url).get(`${slug}?customer_session_token=till_cst_nope`);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('This link is not valid');
    expect(unknown.setCookies).toEqual([]);

    // The other shop's customer, on this shop's portal: refused, and neither customer's data is shown.
    const crossed = await new TestClient(daemon().url).get(`${slug}?customer_session_token=${other.token}`);
    expect(crossed.status).toBe(401);
    expect(crossed.text).toContain('This link is not valid');
    expect(crossed.text).not.toContain('Studio plan');
    expect(crossed.setCookies).toEqual([]);

    const missing = await new TestClient(daemon().url).get(`/portal/no-such-shop?customer_session_token=${shop.token}`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Portal not found');

    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    daemon().clock.advance(HOUR + 1000);
    const expired = await client.get(path);
    expect(expired.status).toBe(401);
    expect(expired.text).toContain('Your session has expired');
    expect(expired.text).toContain('Go back to First Shop');
    expect(expired.text).not.toContain('Studio plan');
    // The dead cookie is cleared.
    expect(expired.setCookies.some((value) => /^till_portal_session=;.*Max-Age=0/.test(value))).toBe(true);
  });
});

describe('POST /portal/{slug} (forms without JavaScript)', () => {
  it('cancels and uncancels a subscription, as the merchant API then shows', async () => {
    const shop = await portalShop(daemon());
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    const canceled = await portalPost(client, daemon(), path, {
      action: 'cancel',
      subscription_id: shop.subscriptionId!,
    });
    expect(canceled.status).toBe(303);
    expect(canceled.headers.location).toBe(`${path}?done=canceled`);
    const merchantView = await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`);
    expect(merchantView.json.cancel_at_period_end).toBe(true);
    const page = await client.get(`${path}?done=canceled`);
    expect(page.text).toContain('Your subscription will end at the end of the current period.');
    expect(page.text).toContain('Keep my subscription');

    const kept = await portalPost(client, daemon(), path, {
      action: 'uncancel',
      subscription_id: shop.subscriptionId!,
    });
    expect(kept.status).toBe(303);
    expect((await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`)).json.cancel_at_period_end).toBe(
      false,
    );
  });

  it('changes the plan to another of the organization’s plans', async () => {
    const shop = await portalShop(daemon());
    const bigger = await createProduct(shop.merchant, {
      name: 'Studio plus',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 2000, price_currency: 'usd' }],
    });
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    const page = await client.get(path);
    expect(page.text).toContain('Studio plus — $20.00 / month');
    const changed = await portalPost(client, daemon(), path, {
      action: 'change_plan',
      subscription_id: shop.subscriptionId!,
      product_id: bigger.id,
    });
    expect(changed.status, changed.text).toBe(303);
    expect((await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`)).json.product_id).toBe(bigger.id);
  });

  it('saves a new card as the default and switches the default back', async () => {
    const shop = await portalShop(daemon());
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    expect((await client.get(path)).text).toMatch(/•••• 4242 \(expires [^)]+\) · default</);
    const refused = await portalPost(client, daemon(), path, { action: 'add_card', card_number: '1234' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('This is not a sandbox test card number.');
    const saved = await portalPost(client, daemon(), path, { action: 'add_card', card_number: '5555 5555 5555 4444' });
    expect(saved.status, saved.text).toBe(303);
    const page = await client.get(`${path}?done=card_saved`);
    expect(page.text).toContain('Your card was saved and is now your default payment method.');
    expect(page.text).toMatch(/•••• 4444 \(expires [^)]+\) · default</);
    const me = new TestClient(daemon().url, { headers: { authorization: `Bearer ${shop.token}` } });
    const cards = (await me.get('/v1/customer-portal/customers/me/payment-methods')).json.items as Array<{
      id: string;
      method_metadata: { last4: string };
    }>;
    const visa = cards.find((card) => card.method_metadata.last4 === '4242')!;
    const back = await portalPost(client, daemon(), path, { action: 'default_card', payment_method_id: visa.id });
    expect(back.status, back.text).toBe(303);
    expect((await me.get('/v1/customer-portal/customers/me')).json.default_payment_method_id).toBe(visa.id);
  });

  it('deactivates a license key activation', async () => {
    const shop = await portalShop(daemon());
    const listed = await new TestClient(daemon().url, {
      headers: { authorization: `Bearer ${shop.token}` },
    }).get('/v1/customer-portal/license-keys/');
    const key = listed.json.items[0] as { id: string; key: string };
    const activated = await new TestClient(daemon().url).post('/v1/customer-portal/license-keys/activate', {
      key: key.key,
      organization_id: shop.merchant.organization.id,
      label: 'Work laptop',
    });
    expect(activated.status, activated.text).toBe(200);
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    expect((await client.get(path)).text).toContain('Work laptop');
    const removed = await portalPost(client, daemon(), path, {
      action: 'deactivate',
      license_key_id: key.id,
      activation_id: activated.json.id,
    });
    expect(removed.status, removed.text).toBe(303);
    const after = await client.get(`${path}?done=deactivated`);
    expect(after.text).toContain('The activation was removed.');
    expect(after.text).not.toContain('Work laptop');
  });

  it('links the receipt and makes an invoice, both as signed PDF links', async () => {
    const shop = await portalShop(daemon());
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    const receipt = await client.get(`${path}/orders/${shop.order.id}/receipt`);
    expect(receipt.status).toBe(303);
    const pdf = await new TestClient(daemon().url).get(String(receipt.headers.location).replace(daemon().url, ''));
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');

    // An invoice needs the order's billing name: refused on the page with what the API says, then made once it is there.
    const refused = await portalPost(client, daemon(), path, { action: 'invoice', order_id: shop.order.id });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('An invoice needs a billing name and address on the order.');
    // The invoice prints the order's billing details, which the merchant completes (Polar's PATCH /v1/orders/{id}).
    const named = await shop.merchant.api.call('PATCH', `/v1/orders/${shop.order.id}`, {
      body: {
        billing_name: 'Ada Buyer',
        billing_address: { country: 'DE', line1: 'Street 1', city: 'Berlin', postal_code: '10115' },
      },
    });
    expect(named.status, named.text).toBe(200);
    const invoice = await portalPost(client, daemon(), path, { action: 'invoice', order_id: shop.order.id });
    expect(invoice.status, invoice.text).toBe(303);
    expect(invoice.headers.location).toBe(`${path}/orders/${shop.order.id}/invoice`);
    const link = await client.get(String(invoice.headers.location));
    expect(link.status).toBe(303);
    expect(String(link.headers.location)).toMatch(/\/documents\/orders\/[^/]+\/invoice\.pdf\?token=/);
  });

  it('refuses posts from other sites, unknown actions and another customer’s ids', async () => {
    const shop = await portalShop(daemon());
    const other = await portalShop(daemon());
    const { client, path } = await openPortal(daemon(), shop.portalUrl);
    const foreign = await client.call('POST', path, {
      rawBody: new URLSearchParams({ action: 'cancel', subscription_id: shop.subscriptionId! }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const unknown = await portalPost(client, daemon(), path, { action: 'explode' });
    expect(unknown.status).toBe(400);
    const notYours = await portalPost(client, daemon(), path, {
      action: 'cancel',
      subscription_id: other.subscriptionId!,
    });
    expect(notYours.status).toBe(404);
    expect((await other.merchant.api.get(`/v1/subscriptions/${other.subscriptionId}`)).json.cancel_at_period_end).toBe(
      false,
    );
    const garbage = await portalPost(client, daemon(), path, { action: 'cancel', subscription_id: 'not-a-uuid' });
    expect(garbage.status).toBe(404);
    // Without the cookie, nothing happens.
    const anonymous = await portalPost(new TestClient(daemon().url), daemon(), path, {
      action: 'cancel',
      subscription_id: shop.subscriptionId!,
    });
    expect(anonymous.status).toBe(401);
    expect((await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`)).json.cancel_at_period_end).toBe(
      false,
    );
  });
});
