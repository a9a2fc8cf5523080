import { randomBytes } from 'node:crypto';
import { Polar } from '@polar-sh/sdk';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/core/kernel/clock.js';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { uploadFile } from '../helpers/files.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function sessionFor(merchant: Merchant, customerId: string): Promise<string> {
  const created = await merchant.api.post('/v1/customer-sessions/', { customer_id: customerId });
  expect(created.status, created.text).toBe(201);
  return created.json.token as string;
}

/** The customer's downloadables through Polar's SDK (strict schemas), every page. */
async function listed(token: string) {
  const sdk = new Polar({ serverURL: daemon().url });
  const items = [];
  for await (const page of await sdk.customerPortal.downloadables.list({ customerSession: token }, {}))
    items.push(...page.result.items);
  return items;
}

async function fetchBytes(url: string) {
  const response = await request(url);
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, body, headers: response.headers };
}

async function shop() {
  const merchant = await createMerchant(daemon());
  const book = randomBytes(5000);
  const extras = randomBytes(3000);
  const bookFile = await uploadFile(merchant.api, book, { name: 'book.pdf' });
  const extrasFile = await uploadFile(merchant.api, extras, { name: 'extras.zip', mimeType: 'application/zip' });
  const benefit = await merchant.api.post('/v1/benefits/', {
    type: 'downloadables',
    description: 'The book',
    properties: { files: [bookFile.id, extrasFile.id] },
  });
  expect(benefit.status, benefit.text).toBe(201);
  const product = await createProduct(merchant);
  await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
  return { merchant, book, extras, bookFile, extrasFile, benefit: benefit.json, product };
}

describe('downloadables', () => {
  it('lists a purchase’s files with signed links that download, expire, and stop with the grant', async () => {
    const s = await shop();
    const bought = await purchase(daemon(), s.merchant, s.product.id);
    await daemon().core.scheduler.drain();
    const token = await sessionFor(s.merchant, bought.customerId);

    const items = await listed(token);
    expect(items.map((item) => item.file.name).sort()).toEqual(['book.pdf', 'extras.zip']);
    const book = items.find((item) => item.file.id === s.bookFile.id)!;
    expect(book.benefitId).toBe(s.benefit.id);
    expect(book.file.download.url.startsWith(`${daemon().url}/v1/customer-portal/downloadables/${book.id}/file?`)).toBe(
      true,
    );
    expect(book.file.download.expiresAt.getTime()).toBe(daemon().clock.now().getTime() + HOUR);
    const [grant] = (await s.merchant.api.get('/v1/benefit-grants/', { query: { customer_id: bought.customerId } }))
      .json.items;
    expect(grant).toMatchObject({ is_granted: true, properties: { files: [s.bookFile.id, s.extrasFile.id] } });

    const downloaded = await fetchBytes(book.file.download.url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.body.equals(s.book)).toBe(true);
    expect(downloaded.headers['content-type']).toBe('application/pdf');
    expect(String(downloaded.headers['content-disposition'])).toContain('book.pdf');

    // Another downloadable's id under this link's signature, or an altered signature or expiry: refused.
    const url = new URL(book.file.download.url);
    const other = items.find((item) => item.id !== book.id)!;
    const swapped = new URL(book.file.download.url.replace(book.id, other.id));
    expect((await fetchBytes(swapped.href)).status).toBe(403);
    const [expiry, signature] = url.searchParams.get('token')!.split('.');
    const tampered = new URL(url);
    tampered.searchParams.set('token', `${Number(expiry) + 3600}.${signature}`);
    const refused = await fetchBytes(tampered.href);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body.toString())).toEqual({
      error: 'NotPermitted',
      detail: 'This download link is not valid.',
    });
    const noToken = new URL(url);
    noToken.searchParams.delete('token');
    expect((await fetchBytes(noToken.href)).status).toBe(403);

    // Past its hour the link is refused; the list hands out a fresh one.
    daemon().clock.advance(HOUR + MINUTE);
    const expired = await fetchBytes(book.file.download.url);
    expect(expired.status).toBe(403);
    expect(JSON.parse(expired.body.toString()).detail).toMatch(/expired/);
    // (The portal session has an hour too: the customer comes back through a new one.)
    const later = await sessionFor(s.merchant, bought.customerId);
    const fresh = (await listed(later)).find((item) => item.id === book.id)!;
    expect((await fetchBytes(fresh.file.download.url)).status).toBe(200);

    // Revoked (a refund that revokes benefits): the still-unexpired link stops working and the list is empty.
    const refund = await s.merchant.api.post('/v1/refunds/', {
      order_id: bought.order.id,
      amount: bought.order.net_amount,
      reason: 'customer_request',
      revoke_benefits: true,
    });
    expect(refund.status, refund.text).toBe(201);
    await daemon().core.scheduler.drain();
    const after = await fetchBytes(fresh.file.download.url);
    expect(after.status).toBe(403);
    expect(JSON.parse(after.body.toString()).detail).toBe('This benefit is no longer granted.');
    expect(await listed(later)).toEqual([]);
  });

  it('keeps an archived file for existing holders and leaves it out for new ones', async () => {
    const s = await shop();
    const first = await purchase(daemon(), s.merchant, s.product.id);
    await daemon().core.scheduler.drain();
    const archived = await s.merchant.api.call('PATCH', `/v1/benefits/${s.benefit.id}`, {
      body: {
        type: 'downloadables',
        properties: { files: [s.bookFile.id, s.extrasFile.id], archived: { [s.extrasFile.id]: true } },
      },
    });
    expect(archived.status, archived.text).toBe(200);
    await daemon().core.scheduler.drain();

    const holder = await listed(await sessionFor(s.merchant, first.customerId));
    expect(holder.map((item) => item.file.name).sort()).toEqual(['book.pdf', 'extras.zip']);
    const extras = holder.find((item) => item.file.id === s.extrasFile.id)!;
    const downloaded = await fetchBytes(extras.file.download.url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.body.equals(s.extras)).toBe(true);

    const second = await purchase(daemon(), s.merchant, s.product.id);
    await daemon().core.scheduler.drain();
    const newcomer = await listed(await sessionFor(s.merchant, second.customerId));
    expect(newcomer.map((item) => item.file.name)).toEqual(['book.pdf']);

    // Another customer's session sees none of them, and the merchant's token is not a customer session.
    const sdk = new Polar({ serverURL: daemon().url });
    await expect(
      sdk.customerPortal.downloadables.list({ customerSession: s.merchant.token }, {}),
    ).rejects.toMatchObject({ statusCode: 401 });
  });
});
