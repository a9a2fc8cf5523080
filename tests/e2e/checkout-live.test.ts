import { describe, expect, it } from 'vitest';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { useBrowser, watchConsole } from '../helpers/browser.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';

// The hosted checkout hydrated by React in Chromium: totals follow the buyer's choices without a round trip.

const daemon = useTestDaemon();
const browser = useBrowser();

describe('hydrated checkout in Chromium', { timeout: 60_000 }, () => {
  it('updates tax and total as the buyer picks a country, and the discount as they type a code', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Live Shop' });
    expect(
      (await merchant.api.post('/v1/tax-rates/', { country: 'DE', basis_points: 1900, name: 'MwSt' })).status,
    ).toBe(201);
    const product = await createProduct(merchant, { name: 'Poster' });
    await createDiscount(merchant, { code: 'LIVE50', basis_points: 5000 });
    const checkout = await createCheckout(merchant, [product.id]);
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    const problems = watchConsole(page);
    try {
      await page.goto(checkout.url);
      // Hydrated: the "Update totals" button is gone.
      await page.getByRole('button', { name: 'Update totals' }).waitFor({ state: 'detached' });
      await page.getByLabel('Country').selectOption('DE');
      await page.locator('[data-testid=total]', { hasText: '$11.90' }).waitFor();
      expect(await page.getByRole('button', { name: 'Pay $11.90' }).count()).toBe(1);
      await page.getByLabel('Country').selectOption('FR');
      await page.locator('[data-testid=total]', { hasText: '$10.00' }).waitFor();

      // A code that does not exist is refused under its field, without leaving the page.
      await page.getByLabel('Discount code').fill('NOPE');
      await page.locator('#discount_code-error').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/checkout/${checkout.client_secret}`);
      await page.getByLabel('Discount code').fill('LIVE50');
      await page.locator('[data-testid=total]', { hasText: '$5.00' }).waitFor();
      expect(await page.locator('#discount_code-error').count()).toBe(0);
      expect(await page.getByText('Discount (LIVE50)').count()).toBe(1);

      // The card number is grouped by four as it is typed.
      await page.getByLabel('Card number').pressSequentially('4242424242424242');
      expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4242');
      await page.getByLabel('E-mail').fill('live@example.com');
      await page.getByRole('button', { name: 'Pay $5.00' }).click();
      await page.waitForURL(`${checkout.url}/confirmation`);
      const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
      expect(Number(order.total_amount)).toBe(500);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses a card that is not a test card inline, before anything is sent', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { name: 'Mug' });
    const checkout = await createCheckout(merchant, [product.id]);
    const context = await (await browser()).newContext();
    const page = await context.newPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    try {
      await page.goto(checkout.url);
      await page.getByRole('button', { name: 'Update totals' }).waitFor({ state: 'detached' });
      await page.getByLabel('E-mail').fill('mug@example.com');
      await page.getByLabel('Country').selectOption('DE');
      await page.getByLabel('Card number').fill('1234 5678');
      await page.getByRole('button', { name: 'Pay $10.00' }).click();
      await page.locator('#card_number-error', { hasText: 'not a sandbox test card' }).waitFor();
      expect(posts).toEqual([]);
      const row = await daemon().core.db('orders').where({ checkout_id: checkout.id }).count({ n: '*' }).first();
      expect(Number(row?.n)).toBe(0);
      // Fixed, the same form pays.
      await page.getByLabel('Card number').fill('4242424242424242');
      await page.getByRole('button', { name: 'Pay $10.00' }).click();
      await page.waitForURL(`${checkout.url}/confirmation`);
      expect(posts).toHaveLength(1);
    } finally {
      await context.close();
    }
  });
});
