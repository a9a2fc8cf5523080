import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

// A buyer in a real browser (Debian's Chromium driven by playwright-core) on the hosted checkout page.

const daemon = useTestDaemon();

/** Debian's chromium, or TILL_CHROMIUM. Never skipped: without a browser this suite fails and says what to do. */
function chromiumPath(): string {
  const path = process.env.TILL_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}. Install it with \`apt-get install -y chromium\` (Debian) or point TILL_CHROMIUM at a Chromium binary.`,
    );
  }
  return path;
}

let launched: Promise<Browser> | undefined;
let shop: Server;
let shopUrl: string;

/** Launched by the first test that needs it, so a missing Chromium fails each test (never skips it). */
function browser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  launched ??= chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
  return launched;
}

beforeAll(async () => {
  // The merchant's site: where success_url sends the buyer.
  shop = createServer((request, response) => {
    const checkoutId = new URL(request.url ?? '/', 'http://shop').searchParams.get('checkout') ?? '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>Thanks</title><h1>Thanks from the shop</h1><p id="checkout">${checkoutId.replace(/[^0-9a-f-]/g, '')}</p>`,
    );
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (launched) await (await launched.catch(() => null))?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
});

async function orders(checkoutId: string): Promise<number> {
  const row = await daemon().core.db('orders').where({ checkout_id: checkoutId }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function fillBuyer(page: Page) {
  await page.getByLabel('E-mail').fill(`buyer-${Date.now()}@example.com`);
  await page.getByLabel('Name').fill('Ada Buyer');
  await page.getByLabel('Country').selectOption('DE');
}

/** Collects what the page's CSP refused: the page must work inside its own policy. */
function watchCsp(page: Page): string[] {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  return refused;
}

describe('hosted checkout in Chromium', { timeout: 60_000 }, () => {
  it('a buyer without JavaScript applies a discount code, pays with the success card and lands on success_url', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Paper Goods' });
    const product = await createProduct(merchant, { name: 'Notebook' });
    await createDiscount(merchant, { code: 'E2E20', basis_points: 2000 });
    const checkout = await createCheckout(merchant, [product.id], {
      success_url: `${shopUrl}/thanks?checkout={CHECKOUT_ID}`,
    });

    // No JavaScript at all: the page is a plain HTML form.
    const context = await (await browser()).newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(checkout.url);
      expect(await page.locator('h1').textContent()).toBe('Notebook');
      expect(await page.locator('[data-testid=total]').textContent()).toBe('$10.00');

      await fillBuyer(page);
      await page.getByLabel('Discount code').fill('E2E20');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('[data-testid=total]', { hasText: '$8.00' }).waitFor();
      expect(await page.getByText('Discount (E2E20)').count()).toBe(1);
      // What the buyer typed before applying the code was saved and is shown again.
      expect(await page.getByLabel('Name').inputValue()).toBe('Ada Buyer');

      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByRole('button', { name: 'Pay $8.00' }).click();
      await page.waitForURL(`${shopUrl}/thanks?checkout=${checkout.id}`);
      expect(await page.locator('#checkout').textContent()).toBe(checkout.id);
      expect(await orders(checkout.id)).toBe(1);
      const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
      expect(Number(order.total_amount)).toBe(800);
    } finally {
      await context.close();
    }
  });

  it('a declined card shows a clear error, creates no order, and another card then pays', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { name: 'Sketchbook' });
    // No success_url: the daemon's own confirmation page is where the buyer lands.
    const checkout = await createCheckout(merchant, [product.id]);
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    const refused = watchCsp(page);
    const posts: Array<Promise<Record<string, string>>> = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.allHeaders());
    });
    try {
      await page.goto(checkout.url);
      await fillBuyer(page);
      await page.getByLabel('Card number').fill('4000 0000 0000 0002');
      await page.getByRole('button', { name: 'Pay $10.00' }).click();
      await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/checkout/${checkout.client_secret}`);
      expect(await orders(checkout.id)).toBe(0);
      // The card number is never echoed back; the rest of the form is.
      expect(await page.getByLabel('Card number').inputValue()).toBe('');
      expect(await page.getByLabel('Name').inputValue()).toBe('Ada Buyer');

      await page.getByLabel('Card number').fill('4242424242424242');
      await page.getByRole('button', { name: 'Pay $10.00' }).click();
      await page.waitForURL(`${checkout.url}/confirmation`);
      await page.getByText('Thank you for your purchase!').waitFor();
      expect(await orders(checkout.id)).toBe(1);
      expect(refused).toEqual([]);
      // What the Origin check sees from a real browser: with Referrer-Policy no-referrer Chromium sends Origin: null
      // on the same-origin form POST, and vouches for it with Sec-Fetch-Site.
      const sent = (await Promise.all(posts)).map((headers) => ({
        origin: headers.origin,
        site: headers['sec-fetch-site'],
      }));
      expect(sent).toEqual([
        { origin: 'null', site: 'same-origin' },
        { origin: 'null', site: 'same-origin' },
      ]);
    } finally {
      await context.close();
    }
  });
});
