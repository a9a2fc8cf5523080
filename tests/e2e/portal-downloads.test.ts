import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useBrowser, watchConsole } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uploadFile } from '../helpers/files.js';
import { startPlatforms, type Platforms } from '../helpers/platforms.js';
import { portalSession } from '../helpers/portal.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// The portal's Downloads and Connect links in Chromium: what the customer clicks is what the daemon serves.

let platforms: Platforms;
let daemon: TestDaemon;
beforeAll(async () => {
  platforms = await startPlatforms();
  daemon = await startTestDaemon({ benefitPlatforms: platforms.config });
});
afterAll(async () => {
  await daemon?.stop();
  await platforms?.close();
});
const browser = useBrowser();

/**
 * A shop whose product grants the benefit `benefitOf` gives (a POST /v1/benefits/ body, after any uploads it makes),
 * bought once with its grant jobs run, and the buyer's portal link.
 */
async function boughtWith(benefitOf: (merchant: Merchant) => Promise<Record<string, unknown>>) {
  const merchant = await createMerchant(daemon, { name: 'Portal Links' });
  const benefit = await benefitOf(merchant);
  const created = await merchant.api.post('/v1/benefits/', benefit);
  expect(created.status, created.text).toBe(201);
  const product = await createProduct(merchant, { name: 'Field guide' });
  const attached = await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [created.json.id] });
  expect(attached.status, attached.text).toBe(200);
  const bought = await purchase(daemon, merchant, product.id);
  await daemon.core.scheduler.drain();
  return { merchant, ...bought, ...(await portalSession(merchant, bought.customerId)) };
}

describe('hosted portal links in Chromium', { timeout: 60_000 }, () => {
  it('downloads exactly the uploaded file; once the grant is revoked the same link is refused and the file gone', async () => {
    const uploaded = randomBytes(6000);
    const shop = await boughtWith(async (merchant) => ({
      type: 'downloadables',
      description: 'The field guide',
      properties: { files: [(await uploadFile(merchant.api, uploaded, { name: 'field-guide.pdf' })).id] },
    }));

    const context = await (await browser()).newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const problems = watchConsole(page);
    try {
      await page.goto(shop.portalUrl);
      await page.getByRole('heading', { name: 'Downloads' }).waitFor();
      const link = page.locator('[data-testid=download]').getByRole('link', { name: 'field-guide.pdf' });
      expect(await page.locator('[data-testid=download]').count()).toBe(1);
      const href = (await link.getAttribute('href'))!;
      expect(href.startsWith(`${daemon.url}/v1/customer-portal/downloadables/`)).toBe(true);

      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe('field-guide.pdf');
      const saved = await readFile((await download.path())!);
      expect(saved.equals(uploaded)).toBe(true);

      // The merchant refunds in full and revokes; the grant job runs.
      const refund = await shop.merchant.api.post('/v1/refunds/', {
        order_id: shop.order.id,
        amount: shop.order.net_amount,
        reason: 'customer_request',
        revoke_benefits: true,
      });
      expect(refund.status, refund.text).toBe(201);
      await daemon.core.scheduler.drain();

      // The link the page handed out earlier has not expired, yet the browser following it is refused.
      const refused = await page.goto(href);
      expect(refused?.status()).toBe(403);
      expect(await refused?.json()).toEqual({ error: 'NotPermitted', detail: 'This benefit is no longer granted.' });

      // The portal again (the session cookie, no token in the address): the file is no longer listed.
      const again = await page.goto(`${daemon.url}${new URL(shop.portalUrl).pathname}`);
      expect(again?.status()).toBe(200);
      await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
      expect(await page.locator('[data-testid=download]').count()).toBe(0);
      expect(await page.getByText('field-guide.pdf').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a GitHub grant waiting for the customer links to the configured GitHub authorization', async () => {
    const shop = await boughtWith(async () => ({
      type: 'github_repository',
      description: 'Source access',
      properties: { repository_owner: 'acme', repository_name: 'private-repo', permission: 'push' },
    }));
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    try {
      await page.goto(shop.portalUrl);
      const benefit = page.locator('[data-testid=benefit]', { hasText: 'Source access' });
      await benefit.waitFor();
      const href = (await benefit.getByRole('link', { name: 'Connect GitHub' }).getAttribute('href'))!;

      // undici's request never follows redirects: the 302 itself is the answer.
      const start = await request(href);
      await start.body.dump();
      expect(start.statusCode).toBe(302);
      const authorize = new URL(String(start.headers.location));
      expect(`${authorize.origin}${authorize.pathname}`).toBe(platforms.config.github.oauth!.authorizeUrl);
      expect(authorize.searchParams.get('client_id')).toBe(platforms.config.github.oauth!.clientId);
      expect(authorize.searchParams.get('redirect_uri')).toBe(
        `${daemon.url}/v1/customer-portal/oauth-accounts/callback`,
      );
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
