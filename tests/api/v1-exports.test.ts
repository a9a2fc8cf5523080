import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { paidOrder, purchase } from '../helpers/purchases.js';
import { createProduct } from '../helpers/catalog.js';
import { ALL_SCOPES, bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';
import { createOrganization } from '../helpers/organizations.js';

const daemon = useTestDaemon();

/** RFC 4180 parsing, enough for the tests: quoted cells with doubled quotes, commas and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  expect(cell).toBe('');
  return rows;
}

describe('CSV exports', () => {
  it('exports orders with Polar’s default columns, chosen columns, filters and a time zone', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon(), { name: 'Other' });
    await paidOrder(daemon(), merchant, 1250);
    daemon().clock.advance(1000);
    const monthly = await paidOrder(daemon(), merchant, 900, 'month');
    await paidOrder(daemon(), other, 700);

    const response = await merchant.api.get('/v1/orders/export');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="orders.csv"');
    const rows = parseCsv(response.text);
    expect(rows[0]).toEqual(['email', 'created_at', 'product', 'net_amount', 'currency', 'status', 'invoice_number']);
    // Oldest first, only this organization's, amounts in the currency's units.
    expect(rows.slice(1).map((row) => row[3])).toEqual(['12.50', '9.00']);
    expect(rows.slice(1).map((row) => row[5])).toEqual(['paid', 'paid']);
    expect(rows[1]![1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

    const chosen = parseCsv(
      (
        await merchant.api.get(
          `/v1/orders/export?columns=billing_reason&columns=total_amount&product_id=${monthly.product.id}`,
        )
      ).text,
    );
    expect(chosen).toEqual([
      ['billing_reason', 'total_amount'],
      ['subscription_create', '9.00'],
    ]);
    const zoned = parseCsv((await merchant.api.get('/v1/orders/export?timezone=Asia/Kolkata&columns=created_at')).text);
    const utc = new Date(zoned[1]![0]!);
    expect(zoned[1]![0]).toMatch(/\+05:30$/);
    // The same instant, written in the zone asked for.
    expect(utc.getTime()).toBe(new Date(rows[1]![1]!).getTime());

    for (const bad of ['timezone=Mars/Olympus', 'columns=password', 'status=lost', 'created_after=yesterday']) {
      const refused = await merchant.api.get(`/v1/orders/export?${bad}`);
      expect(refused.status, bad).toBe(422);
      expect(refused.json.detail[0].loc[0]).toBe('query');
    }
  });

  it('defuses spreadsheet formulas in text a buyer typed, and quotes what needs quoting', async () => {
    const merchant = await createMerchant(daemon());
    const product = await createProduct(merchant, { name: '=SUM(A1:A9)' });
    await purchase(daemon(), merchant, product.id, { customer_name: 'Doe, "Jay"\nJr' });
    const rows = parseCsv(
      (await merchant.api.get('/v1/orders/export?columns=product&columns=customer_name&columns=net_amount')).text,
    );
    expect(rows[1]).toEqual(["'=SUM(A1:A9)", 'Doe, "Jay"\nJr', '10.00']);
  });

  it('exports subscriptions and customers, across more rows than one batch', async () => {
    const merchant = await createMerchant(daemon());
    const monthly = await paidOrder(daemon(), merchant, 2000, 'month');
    const canceled = await merchant.api.call('PATCH', `/v1/subscriptions/${monthly.subscriptionId}`, {
      body: { cancel_at_period_end: true },
    });
    expect(canceled.status).toBe(200);
    const subscriptions = parseCsv(
      (
        await merchant.api.get(
          '/v1/subscriptions/export?columns=email&columns=amount&columns=cancel_at_period_end&columns=seats',
        )
      ).text,
    );
    expect(subscriptions).toHaveLength(2);
    expect(subscriptions[1]!.slice(1)).toEqual(['20.00', 'true', '1']);
    expect(parseCsv((await merchant.api.get('/v1/subscriptions/export?cancel_at_period_end=false')).text)).toHaveLength(
      1,
    );

    // 1,001 more customers: the export crosses a batch boundary without losing or repeating a row.
    const emails = Array.from({ length: 1001 }, (_, i) => `bulk-${String(i).padStart(4, '0')}@example.com`);
    for (let i = 0; i < emails.length; i += 50)
      await Promise.all(
        emails.slice(i, i + 50).map(async (email) => {
          const created = await merchant.api.post('/v1/customers/', { email });
          expect(created.status).toBe(201);
        }),
      );
    const customers = parseCsv((await merchant.api.get('/v1/customers/export')).text);
    expect(customers[0]).toEqual([
      'id',
      'external_id',
      'created_at',
      'email',
      'name',
      'tax_id',
      'billing_name',
      'billing_address_line1',
      'billing_address_line2',
      'billing_address_city',
      'billing_address_state',
      'billing_address_postal_code',
      'billing_address_country',
    ]);
    const exported = customers.slice(1).map((row) => row[3]);
    expect(exported).toHaveLength(1002);
    expect(new Set(exported).size).toBe(1002);
    expect(exported).toEqual(expect.arrayContaining(emails));
  });

  it('merges a member’s organizations into one oldest-first file', async () => {
    const first = await createMerchant(daemon());
    // A second organization of the same owner, with its own token to sell through.
    const organization = await createOrganization(first.owner.client, { name: 'Second' });
    const token = await first.session.post('/v1/organization-access-tokens/', {
      organization_id: organization.id,
      comment: 'second',
      scopes: ALL_SCOPES,
    });
    expect(token.status).toBe(201);
    const second = { ...first, organization, api: bearerClient(daemon(), token.json.token as string) } as Merchant;
    const amounts = [1100, 2200, 1300, 2400, 2500, 1600];
    for (const amount of amounts) {
      await paidOrder(daemon(), amount < 2000 ? first : second, amount);
      daemon().clock.advance(1000);
    }
    // The owner's session reads both organizations: one file, in the order the orders were made.
    const rows = parseCsv((await first.session.get('/v1/orders/export?columns=net_amount&columns=created_at')).text);
    expect(rows.slice(1).map((row) => row[0])).toEqual(['11.00', '22.00', '13.00', '24.00', '25.00', '16.00']);
    const only = parseCsv((await first.session.get(`/v1/orders/export?organization_id=${organization.id}`)).text);
    expect(only.slice(1).map((row) => row[3])).toEqual(['22.00', '24.00', '25.00']);
  });

  it('needs a token with the resource’s read scope', async () => {
    const merchant = await createMerchant(daemon(), { scopes: ['products:read'] });
    const refused = await merchant.api.get('/v1/orders/export');
    expect(refused.status).toBe(403);
  });
});
