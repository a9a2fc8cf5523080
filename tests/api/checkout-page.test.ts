import { describe, expect, it } from 'vitest';
import { createCheckout, createDiscount, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// The hosted checkout page over plain HTTP: what a browser without JavaScript sends and gets.

const daemon = useTestDaemon();
const email = () => `buyer-${Math.random().toString(36).slice(2, 10)}@example.com`;

function page(secret: string, suffix = '') {
  return new TestClient(daemon().url).get(`/checkout/${secret}${suffix}`);
}

/** A form POST as a browser on the page sends it: form-encoded, Origin the daemon's own. */
function submit(secret: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new TestClient(daemon().url).call('POST', `/checkout/${secret}`, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: daemon().url, ...headers },
  });
}

/** The fields a buyer fills in for a plain product, plus the Pay button. */
function payFields(total: number, card: string, extra: Record<string, string> = {}) {
  return {
    customer_email: email(),
    customer_name: 'Ada Buyer',
    billing_country: 'DE',
    card_number: card,
    shown_total: String(total),
    action: 'pay',
    ...extra,
  };
}

async function count(table: string, where: Record<string, unknown>): Promise<number> {
  const row = await daemon().core.db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function customField(merchant: Merchant, body: Record<string, unknown>) {
  const response = await merchant.api.post('/v1/custom-fields/', {
    organization_id: merchant.organization.id,
    ...body,
  });
  expect(response.status, response.text).toBe(201);
  return response.json as { id: string };
}

const csp = (headers: Record<string, unknown>) => String(headers['content-security-policy']);

/** The opening tag of the element with this id, whatever order React writes its attributes in. */
function tag(html: string, id: string): string {
  const found = new RegExp(`<[a-z]+ [^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  if (!found) throw new Error(`no element with id ${id}`);
  return found;
}

describe('GET /checkout/{client_secret}', () => {
  it('shows the organization, product, price and totals, with strict security headers', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Acme Tools' });
    const product = await createProduct(merchant, { name: 'Pro plan' });
    await merchant.api.call('PATCH', `/v1/products/${product.id}`, { body: { description: 'Everything in Pro.' } });
    const checkout = await createCheckout(merchant, [product.id]);
    const response = await page(checkout.client_secret);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    for (const text of [
      'Acme Tools',
      'Pro plan',
      'Everything in Pro.',
      '$10.00',
      'Subtotal',
      'Tax',
      'Total',
      'Pay $10.00',
      '4242 4242 4242 4242',
    ])
      expect(response.text).toContain(text);
    expect(response.text).toContain('data-testid="total">$10.00<');

    const policy = csp(response.headers);
    const nonce = /style-src 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src 'nonce-${nonce}'`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("img-src 'self' data:");
    expect(policy).toMatch(/form-action 'self'/);
    expect(response.text).toContain(`<style nonce="${nonce}">`);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
    // The secret is in the URL only: the form posts back to the same URL without naming it.
    expect(response.text).not.toContain(checkout.client_secret);
    expect((await page(checkout.client_secret)).headers['content-security-policy']).not.toBe(policy);
  });

  it('lets only the embed origin frame the page, and allows the success URL as a form target', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], {
      embed_origin: 'https://shop.example:8443/some/page',
      success_url: 'https://thanks.example/done?c={CHECKOUT_ID}',
    });
    const response = await page(checkout.client_secret);
    expect(response.status).toBe(200);
    expect(csp(response.headers)).toContain('frame-ancestors https://shop.example:8443');
    expect(csp(response.headers)).toMatch(
      /form-action 'self' http:\/\/127\.0\.0\.1:\d+ https:\/\/thanks\.example(;|$)/,
    );
    expect(response.headers['x-frame-options']).toBeUndefined();
  });

  it('escapes what merchants write', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Evil & Co' });
    const product = await createProduct(merchant, { name: '<script>alert("x")</script>' });
    const checkout = await createCheckout(merchant, [product.id]);
    const response = await page(checkout.client_secret);
    expect(response.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(response.text).not.toContain('<script>alert');
    expect(response.text).toContain('Evil &amp; Co');
  });

  it('renders custom fields with required markers, a custom amount, and a product choice', async () => {
    const merchant = await createMerchant(daemon());
    const terms = await customField(merchant, {
      type: 'checkbox',
      slug: 'terms',
      name: 'Terms',
      properties: { form_label: 'I accept the terms' },
    });
    const size = await customField(merchant, {
      type: 'select',
      slug: 'size',
      name: 'Size',
      properties: {
        options: [
          { value: 's', label: 'Small' },
          { value: 'm', label: 'Medium' },
        ],
      },
    });
    const seats = await customField(merchant, {
      type: 'number',
      slug: 'seats',
      name: 'Seats',
      properties: { ge: 1, le: 50, form_help_text: 'How many people?' },
    });
    const start = await customField(merchant, { type: 'date', slug: 'start', name: 'Start date', properties: {} });
    const note = await customField(merchant, {
      type: 'text',
      slug: 'note',
      name: 'Note',
      properties: { textarea: true },
    });
    const tip = await createProduct(merchant, {
      name: 'Tip jar',
      prices: [
        {
          amount_type: 'custom',
          price_currency: 'usd',
          minimum_amount: 500,
          maximum_amount: 10000,
          preset_amount: 1500,
        },
      ],
      attached_custom_fields: [
        { custom_field_id: terms.id, required: true },
        { custom_field_id: size.id, required: false },
        { custom_field_id: seats.id, required: true },
        { custom_field_id: start.id, required: false },
        { custom_field_id: note.id, required: false },
      ],
    });
    const other = await createProduct(merchant, { name: 'Sticker' });
    const checkout = await createCheckout(merchant, [tip.id, other.id]);
    const html = (await page(checkout.client_secret)).text;
    expect(tag(html, 'cf_terms')).toMatch(/^<input type="checkbox"(?=.*required="")(?=.*name="cf_terms")/);
    expect(html).toContain('I accept the terms<span class="req"');
    expect(tag(html, 'cf_size')).toMatch(/^<select (?=.*name="cf_size")/);
    expect(tag(html, 'cf_size')).not.toContain('required');
    expect(html).toContain('<option value="m">Medium</option>');
    expect(tag(html, 'cf_seats')).toMatch(/^<input type="number"(?=.*required="")(?=.*min="1")(?=.*max="50")/);
    expect(html).toContain('How many people?');
    expect(tag(html, 'cf_start')).toMatch(/^<input type="date"/);
    expect(tag(html, 'cf_note')).toMatch(/^<textarea /);
    expect(html).toContain('Pay what you want (from $5.00)');
    expect(tag(html, 'amount')).toContain('value="15.00"');
    expect(html).toContain('From $5.00 to $100.00.');
    expect(html).toMatch(/type="radio" name="product_id" value="[^"]+"/);

    // Out-of-bounds amount and a missing required checkbox: errors next to their fields, nothing paid.
    const low = await submit(
      checkout.client_secret,
      payFields(1500, '4242424242424242', { amount: '2.00', cf_seats: '3' }),
    );
    expect(low.status).toBe(422);
    expect(low.text).toMatch(/id="amount-error">Amount must be at least 5\.00 USD/);
    expect(tag(low.text, 'amount')).toContain('value="2.00"');
    const missing = await submit(
      checkout.client_secret,
      payFields(2500, '4242424242424242', { amount: '25', cf_seats: '3' }),
    );
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/id="cf_terms-error">Field required/);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    const paid = await submit(
      checkout.client_secret,
      payFields(2500, '4242424242424242', { amount: '25', cf_seats: '3', cf_terms: 'on', cf_size: 'm' }),
    );
    expect(paid.status, paid.text).toBe(303);
    const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
    expect(Number(order.total_amount)).toBe(2500);
    const saved = await daemon().core.db('checkouts').where({ id: checkout.id }).first();
    expect(JSON.parse(saved.custom_field_data)).toMatchObject({ terms: true, size: 'm', seats: 3 });
  });

  it('answers 404, 410 and 403 with pages of their own', async () => {
    const missing = await page('till_c_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Checkout not found');
    expect(missing.headers['content-security-policy']).toContain("default-src 'none'");

    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const paid = await createCheckout(merchant, [product.id]);
    expect((await submit(paid.client_secret, payFields(1000, '4242424242424242'))).status).toBe(303);
    const again = await page(paid.client_secret);
    expect(again.status).toBe(403);
    expect(again.text).toContain('This checkout is already paid');
    const payAgain = await submit(paid.client_secret, payFields(1000, '4242424242424242'));
    expect(payAgain.status).toBe(403);
    expect(await count('orders', { checkout_id: paid.id })).toBe(1);

    const stale = await createCheckout(merchant, [product.id]);
    daemon().clock.advance(25 * 60 * 60 * 1000);
    const expired = await page(stale.client_secret);
    expect(expired.status).toBe(410);
    expect(expired.headers['content-type']).toMatch(/^text\/html/);
    expect(expired.text).toContain('This checkout has expired');
    expect((await submit(stale.client_secret, payFields(1000, '4242424242424242'))).status).toBe(410);
    expect((await page(stale.client_secret, '/confirmation')).status).toBe(410);
  });
});

describe('POST /checkout/{client_secret}', () => {
  it('applies a discount code and re-renders the new totals', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    await createDiscount(merchant, { code: 'TENOFF', basis_points: 1000 });
    const checkout = await createCheckout(merchant, [product.id]);
    const wrong = await submit(checkout.client_secret, { discount_code: 'NOPE', customer_email: '', action: 'apply' });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/id="discount_code-error">Discount code is invalid/);
    const applied = await submit(checkout.client_secret, {
      discount_code: 'TENOFF',
      customer_email: '',
      action: 'apply',
    });
    expect(applied.status).toBe(200);
    expect(applied.text).toContain('Discount (TENOFF)');
    expect(applied.text).toContain('−$1.00');
    expect(applied.text).toContain('data-testid="total">$9.00<');
    expect(applied.text).toContain('Pay $9.00');
    const removed = await submit(checkout.client_secret, { discount_code: 'TENOFF', action: 'remove_discount' });
    expect(removed.text).toContain('data-testid="total">$10.00<');
  });

  it('pays with the success card: 303 to the success URL with the id, and an order', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], {
      success_url: 'https://shop.example/thanks?checkout={CHECKOUT_ID}',
    });
    const response = await submit(checkout.client_secret, payFields(1000, '4242 4242 4242 4242'));
    expect(response.status, response.text).toBe(303);
    expect(response.headers.location).toBe(`https://shop.example/thanks?checkout=${checkout.id}`);
    expect(response.text).toBe('');
    const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
    expect(order).toMatchObject({ status: 'paid' });
    expect(Number(order.total_amount)).toBe(1000);
  });

  it('sends a buyer without a success URL to the confirmation page', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { name: 'Notebook' });
    const checkout = await createCheckout(merchant, [product.id]);
    const before = await page(checkout.client_secret, '/confirmation');
    expect(before.text).toContain('This checkout is not paid yet');
    // Its link back is relative ("."), so the secret is not written into the page; the trailing slash still routes.
    expect(before.text).toContain('<a href=".">');
    expect(before.text).not.toContain(checkout.client_secret);
    expect((await page(checkout.client_secret, '/')).status).toBe(200);
    const response = await submit(checkout.client_secret, payFields(1000, '4242424242424242'));
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe(`${checkout.url}/confirmation`);
    const confirmation = await page(checkout.client_secret, '/confirmation');
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain('Thank you for your purchase!');
    expect(confirmation.text).toContain('Notebook');
    expect(confirmation.text).toContain('Paid: $10.00');
  });

  it('shows a declined card on the page and creates no order', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const declined = await submit(checkout.client_secret, payFields(1000, '4000000000000002'));
    expect(declined.status).toBe(400);
    expect(declined.text).toContain('Your card was declined.');
    expect(declined.text).not.toContain('4000000000000002');
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    const insufficient = await submit(checkout.client_secret, payFields(1000, '4000000000009995'));
    expect(insufficient.text).toContain('Your card has insufficient funds.');
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    expect((await submit(checkout.client_secret, payFields(1000, '4242424242424242'))).status).toBe(303);
  });

  it('shows field errors next to their fields: e-mail, card, billing', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const badEmail = await submit(checkout.client_secret, {
      ...payFields(1000, '4242424242424242'),
      customer_email: 'not-an-email',
    });
    expect(badEmail.status).toBe(422);
    expect(tag(badEmail.text, 'customer_email')).toMatch(
      /(?=.*aria-invalid="true")(?=.*aria-describedby="customer_email-error")/,
    );
    expect(badEmail.text).toMatch(/id="customer_email-error">Value is not a valid email address/);
    expect(badEmail.text).toContain('value="not-an-email"');
    const unknownCard = await submit(checkout.client_secret, payFields(1000, '1234123412341234'));
    expect(unknownCard.status).toBe(422);
    expect(unknownCard.text).toMatch(/id="card_number-error">This is not a sandbox test card number/);
    const noCountry = await submit(
      checkout.client_secret,
      payFields(1000, '4242424242424242', { billing_country: '' }),
    );
    expect(noCountry.text).toMatch(/id="billing_country-error">Field required/);
    // A US address needs a state and ZIP: the fields appear with their errors.
    const us = await submit(checkout.client_secret, payFields(1000, '4242424242424242', { billing_country: 'US' }));
    expect(us.status).toBe(422);
    expect(us.text).toMatch(/id="billing_state-error">Field required/);
    expect(us.text).toMatch(/id="billing_postal_code-error">Field required/);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
  });

  it('never charges a total the buyer has not seen', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    await createDiscount(merchant, { code: 'HALF', basis_points: 5000 });
    const checkout = await createCheckout(merchant, [product.id]);
    // A code typed but not applied changes the total: the page shows it instead of paying.
    const first = await submit(checkout.client_secret, payFields(1000, '4242424242424242', { discount_code: 'HALF' }));
    expect(first.status).toBe(200);
    expect(first.text).toContain('The total is now $5.00. Check it and press Pay again.');
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    const second = await submit(checkout.client_secret, payFields(500, '4242424242424242', { discount_code: 'HALF' }));
    expect(second.status).toBe(303);
    const order = await daemon().core.db('orders').where({ checkout_id: checkout.id }).first();
    expect(Number(order.total_amount)).toBe(500);
  });

  it('completes a free product without a card', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, {
      name: 'Free sample',
      prices: [{ amount_type: 'free', price_currency: 'usd' }],
    });
    const checkout = await createCheckout(merchant, [product.id]);
    const html = (await page(checkout.client_secret)).text;
    expect(html).toContain('Complete order');
    expect(html).not.toContain('name="card_number"');
    const response = await submit(checkout.client_secret, payFields(0, ''));
    expect(response.status, response.text).toBe(303);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(1);
  });

  it('refuses form posts from other sites', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const foreign = await submit(checkout.client_secret, payFields(1000, '4242424242424242'), {
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain('This form was sent from another site');
    const crossSite = await submit(checkout.client_secret, payFields(1000, '4242424242424242'), {
      origin: 'null',
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
    const opaque = await submit(checkout.client_secret, payFields(1000, '4242424242424242'), { origin: 'null' });
    expect(opaque.status).toBe(403);
    expect(await count('orders', { checkout_id: checkout.id })).toBe(0);
    const json = await new TestClient(daemon().url).call('POST', `/checkout/${checkout.client_secret}`, {
      body: payFields(1000, '4242424242424242'),
      headers: { origin: daemon().url },
    });
    expect(json.status).toBe(415);
    // With no-referrer, a browser's same-origin POST carries Origin: null and attests Sec-Fetch-Site.
    const sameOrigin = await submit(checkout.client_secret, payFields(1000, '4242424242424242'), {
      origin: 'null',
      'sec-fetch-site': 'same-origin',
    });
    expect(sameOrigin.status).toBe(303);
  });
});

describe('NUL characters on the checkout page', () => {
  // Before: PostgreSQL refused the NUL and the buyer got a 500 page (SQLite stored it).
  it('refuses a NUL in a field with the form shown again, and a NUL in the link with the not-found page', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const refused = await submit(checkout.client_secret, {
      customer_email: 'buyer@example.com',
      customer_name: 'Ada\u0000Buyer',
      action: 'apply',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/id="customer_name-error">This field cannot contain NUL characters\./);
    expect(tag(refused.text, 'customer_name')).toContain('value="AdaBuyer"');
    const stored = await daemon().core.db('checkouts').where({ id: checkout.id }).first();
    expect(stored.customer_name).toBeNull();

    expect((await page(`${checkout.client_secret}%00`)).status).toBe(404);
    const posted = await submit(`${checkout.client_secret}%00`, { customer_name: 'Ada' });
    expect([posted.status, posted.text]).toEqual([404, expect.stringContaining('Checkout not found')]);
  });
});
