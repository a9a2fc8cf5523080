import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/kernel/clock.js';
import { useBrowser, watchConsole } from '../helpers/browser.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { portalShop } from '../helpers/portal.js';

// A customer in Chromium on the hosted portal their merchant's customer_portal_url sends them to.

const daemon = useTestDaemon();
const browser = useBrowser();

describe('hosted customer portal in Chromium', { timeout: 60_000 }, () => {
  it('shows what the purchase granted; a key copied from the portal validates through the public API', async () => {
    const shop = await portalShop(daemon(), 'Key Shop');
    const context = await (await browser()).newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    const problems = watchConsole(page);
    try {
      await page.goto(shop.portalUrl);
      // The token left the address bar for an HttpOnly cookie the page's scripts cannot read.
      expect(new URL(page.url()).search).toBe('');
      expect(await page.evaluate(() => document.cookie)).toBe('');
      await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
      expect(await page.getByText('Join us at chat.example.com with code 42').count()).toBe(1);
      expect(await page.locator('[data-testid=subscription]', { hasText: 'Studio plan' }).count()).toBe(1);

      // Copy appears once the page is hydrated.
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(await page.locator('[data-testid=license-key-value]').inputValue());

      const validated = await new TestClient(daemon().url).post('/v1/customer-portal/license-keys/validate', {
        key: copied,
        organization_id: shop.merchant.organization.id,
      });
      expect(validated.status, validated.text).toBe(200);
      expect(validated.json.status).toBe('granted');
      expect(validated.json.customer_id).toBe(shop.customerId);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a cancel from the portal is what the merchant API then shows', async () => {
    const shop = await portalShop(daemon());
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    try {
      await page.goto(shop.portalUrl);
      await page.getByRole('button', { name: 'Cancel at the end of the period' }).click();
      await page.getByRole('status').filter({ hasText: 'Your subscription will end' }).waitFor();
      const subscription = await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`);
      expect(subscription.json.cancel_at_period_end).toBe(true);
      await page.getByRole('button', { name: 'Keep my subscription' }).click();
      await page.getByRole('status').filter({ hasText: 'Your subscription continues' }).waitFor();
      expect((await shop.merchant.api.get(`/v1/subscriptions/${shop.subscriptionId}`)).json.cancel_at_period_end).toBe(
        false,
      );
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says what happened without a session, with another shop’s link and once the session expired', async () => {
    const shop = await portalShop(daemon(), 'Home Shop');
    const other = await portalShop(daemon(), 'Elsewhere');
    const path = new URL(shop.portalUrl).pathname;
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    try {
      const bare = await page.goto(`${daemon().url}${path}`);
      expect(bare?.status()).toBe(401);
      await page.getByRole('heading', { name: 'Sign in from Home Shop' }).waitFor();

      const crossed = await page.goto(`${daemon().url}${path}?customer_session_token=${other.token}`);
      expect(crossed?.status()).toBe(401);
      await page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
      expect(await page.getByText('Studio plan').count()).toBe(0);

      await page.goto(shop.portalUrl);
      await page.getByRole('heading', { name: 'Your purchases' }).waitFor();
      daemon().clock.advance(HOUR + 1000);
      const expired = await page.reload();
      expect(expired?.status()).toBe(401);
      await page.getByRole('heading', { name: 'Your session has expired' }).waitFor();
      expect(await page.getByText('Studio plan').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
