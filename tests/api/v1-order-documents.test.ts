import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/kernel/clock.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { paidOrder, purchase } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function pdfText(url: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(url);
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('pdf')) return { status: response.status, type, text: await response.text() };
  const { text } = await extractText(new Uint8Array(await response.arrayBuffer()), { mergePages: true });
  return { status: response.status, type, text };
}

/** The invoice needs a name and a street address: set them as the merchant would, keeping the taxed country. */
async function billTo(merchant: Merchant, orderId: string, name: string): Promise<void> {
  const order = (await merchant.api.get(`/v1/orders/${orderId}`)).json;
  const country = order.billing_address?.country ?? 'US';
  const state = order.billing_address?.state ?? null;
  const updated = await merchant.api.call('PATCH', `/v1/orders/${orderId}`, {
    body: {
      billing_name: name,
      billing_address: { country, state, line1: '12 Analytical Street', city: 'Springfield', postal_code: '12345' },
    },
  });
  expect(updated.status, updated.text).toBe(200);
}

describe('invoices and receipts', () => {
  it('generates an invoice with the next number, links to its PDF and renders the order in it', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Acme Tools' });
    const { order } = await paidOrder(daemon(), merchant, 1250);

    const early = await merchant.api.post(`/v1/orders/${order.id}/invoice`);
    expect(early.status).toBe(422);
    expect(early.json.error).toBe('MissingInvoiceBillingDetails');
    expect((await merchant.api.get(`/v1/orders/${order.id}/invoice`)).status).toBe(404);

    await billTo(merchant, order.id, 'Ada Lovelace');
    const generated = await merchant.api.post(`/v1/orders/${order.id}/invoice`);
    expect(generated.status).toBe(202);
    expect(generated.json).toEqual({});
    expect((await merchant.api.get(`/v1/orders/${order.id}`)).json.is_invoice_generated).toBe(true);
    const updates = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: merchant.organization.id, type: 'order.updated' });
    expect(updates.length).toBeGreaterThanOrEqual(2);

    const link = await merchant.api.get(`/v1/orders/${order.id}/invoice`);
    expect(link.status).toBe(200);
    expect(link.json.url).toMatch(new RegExp(`^${daemon().url}/documents/orders/${order.id}/invoice\\.pdf\\?token=`));
    const invoice = await pdfText(link.json.url);
    expect(invoice.status).toBe(200);
    expect(invoice.type).toBe('application/pdf');
    expect(invoice.text).toContain('Invoice');
    expect(invoice.text).toMatch(/Invoice number: [A-Z0-9]+-INV-0001/);
    expect(invoice.text).toContain(`Order: ${(await merchant.api.get(`/v1/orders/${order.id}`)).json.invoice_number}`);
    expect(invoice.text).toContain('Acme Tools');
    expect(invoice.text).toContain('Ada Lovelace');
    expect(invoice.text).toContain('12 Analytical Street');
    expect(invoice.text).toContain('12.50 USD');

    // Generating again keeps the number; a corrected name shows on the next download.
    await billTo(merchant, order.id, 'Augusta Ada King');
    expect((await merchant.api.post(`/v1/orders/${order.id}/invoice`)).status).toBe(202);
    const again = await pdfText((await merchant.api.get(`/v1/orders/${order.id}/invoice`)).json.url);
    expect(again.text).toMatch(/Invoice number: [A-Z0-9]+-INV-0001/);
    expect(again.text).toContain('Augusta Ada King');

    // A forged link is not found; a real one stops working after its hour.
    const forged = link.json.url.replace(/token=\d+\./, 'token=9999999999.');
    expect((await pdfText(forged)).status).toBe(404);
    expect((await pdfText(link.json.url.replace('/invoice.pdf', '/receipt.pdf'))).status).toBe(404);
    daemon().clock.advance(2 * HOUR);
    expect((await pdfText(link.json.url)).status).toBe(410);
  });

  it('numbers invoices generated at the same time without repeats or gaps', async () => {
    const merchant = await createMerchant(daemon());
    const orders = [];
    for (let i = 0; i < 8; i++) orders.push((await paidOrder(daemon(), merchant, 500 + i)).order);
    for (const order of orders) await billTo(merchant, order.id, `Buyer ${order.id.slice(0, 4)}`);
    const answers = await Promise.all(orders.map((order) => merchant.api.post(`/v1/orders/${order.id}/invoice`)));
    expect(answers.map((answer) => answer.status)).toEqual(orders.map(() => 202));
    const numbers = await daemon()
      .core.db('orders')
      .whereIn(
        'id',
        orders.map((order) => order.id),
      )
      .pluck('invoice_document_number');
    const sequence = numbers.map((number: string) => Number(number.slice(-4))).sort((a: number, b: number) => a - b);
    expect(sequence).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('gives a receipt for a paid order, to the merchant and to the customer in the portal only', async () => {
    const merchant = await createMerchant(daemon(), { name: 'Receipts Inc' });
    const { product, order, customerSessionToken } = await paidOrder(daemon(), merchant, 2000);
    const other = await purchase(daemon(), merchant, product.id);
    const receipt = await merchant.api.get(`/v1/orders/${order.id}/receipt`);
    expect(receipt.status).toBe(200);
    const document = await pdfText(receipt.json.url);
    expect(document.text).toContain('Receipt');
    expect(document.text).toContain('Amount paid');
    expect(document.text).toContain('20.00 USD');

    const portal = new TestClient(daemon().url, { headers: { authorization: `Bearer ${customerSessionToken}` } });
    const own = await portal.get(`/v1/customer-portal/orders/${order.id}/receipt`);
    expect(own.status).toBe(200);
    expect((await pdfText(own.json.url)).text).toContain('Receipts Inc');
    expect((await portal.get(`/v1/customer-portal/orders/${other.order.id}/receipt`)).status).toBe(404);
    expect((await portal.get(`/v1/customer-portal/orders/${order.id}/invoice`)).status).toBe(404);
    expect((await portal.post(`/v1/customer-portal/orders/${order.id}/invoice`)).status).toBe(422);
    expect((await new TestClient(daemon().url).get(`/v1/customer-portal/orders/${order.id}/receipt`)).status).toBe(401);
  });
});
