import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { createSandboxProcessor } from '../../src/core/payments/sandbox.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/webhooks/schemas.js';
import { createDiscount, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createCustomFieldVia } from '../helpers/products.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

// Issue 21's missing steps, each through the built CLI: paying a sandbox checkout, custom fields on products,
// discount and checkout-link commands, webhook endpoints for every event type, and messages that say what they mean.
const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));

async function merchantCli() {
  const merchant = await createMerchant(daemon());
  return { merchant, cli: sandbox({ TILL_TOKEN: merchant.owner.token }) };
}

describe('till checkouts create and pay', () => {
  it('prints the URL and the id, -q only the id, and pays with a test card by id or by URL', async () => {
    const { merchant, cli } = await merchantCli();
    const product = await createProduct(merchant, { name: 'Guide' });

    const created = await cli.run(['checkouts', 'create', '--product', product.id]);
    expect(created.exitCode, created.stderr).toBe(0);
    const url = created.stdout.trim();
    expect(url).toMatch(new RegExp(`^${daemon().url}/checkout/`));
    const id = /Created checkout (\S+) \(10\.00 USD\)/.exec(created.stderr)?.[1];
    expect(id).toBeDefined();

    const quiet = await cli.run(['checkouts', 'create', '--product', product.id, '-q']);
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stdout).toMatch(/^[0-9a-f-]{36}$/);
    expect(quiet.stderr).toBe('');

    const paid = await cli.run([
      'checkouts',
      'pay',
      quiet.stdout.trim(),
      '--card',
      '4242 4242 4242 4242',
      '--exp',
      '12/34',
      '--cvc',
      '123',
      '--email',
      'ada@example.com',
      '--country',
      'de',
    ]);
    expect(paid.exitCode, paid.stderr).toBe(0);
    expect(paid.stdout.trim()).toBe(quiet.stdout.trim());
    expect(paid.stderr).toContain('Paid checkout');
    expect(paid.stderr).toContain('10.00 USD');
    const shown = await cli.run(['checkouts', 'show', quiet.stdout.trim(), '--json']);
    expect(shown.json).toMatchObject({
      status: 'succeeded',
      customer_email: 'ada@example.com',
      customer_billing_address: { country: 'DE' },
    });

    // By URL, no sign-in needed: a declined test token is the daemon's refusal (exit 1), the checkout stays open.
    const buyer = sandbox();
    const declined = await buyer.run([
      'checkouts',
      'pay',
      url,
      '--token',
      'tok_chargeDeclined',
      '--email',
      'b@example.com',
      '--country',
      'SE',
    ]);
    expect(declined.exitCode).toBe(1);
    expect(declined.stderr).toContain('declined');
    const again = await buyer.run(['checkouts', 'pay', url, '--token', 'tok_visa', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    // The confirmation answers as Polar's does, `confirmed`; the order is written by the time it answers.
    expect(again.json).toMatchObject({ id, status: 'confirmed' });
    expect((await cli.run(['checkouts', 'show', id!, '--json'])).json).toMatchObject({ status: 'succeeded' });
  });

  it('refuses what is not a test card, naming the flag, before anything is sent (exit 2)', async () => {
    const { cli } = await merchantCli();
    const real = await cli.run(['checkouts', 'pay', 'anything', '--card', '4111111111111111']);
    expect(real.exitCode).toBe(2);
    expect(real.stderr).toContain('the card number (--card) must be a sandbox test card');
    const expiry = await cli.run(['checkouts', 'pay', 'anything', '--card', '4242424242424242', '--exp', '13/30']);
    expect(expiry.exitCode).toBe(2);
    expect(expiry.stderr).toContain('the card expiry (--exp) takes MM/YY');
    const none = await cli.run(['checkouts', 'pay', 'anything']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('--card 4242424242424242, or --token tok_visa');
    const missing = await cli.run(['checkouts', 'pay', '00000000-0000-4000-8000-000000000000', '--token', 'tok_visa']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('checkout 00000000-0000-4000-8000-000000000000 not found');
  });
});

describe('till checkouts pay on a daemon whose processor is not the sandbox', () => {
  // The sandbox's behaviour under another name: the CLI goes by the name the checkout states.
  const real = useTestDaemon({}, { paymentProcessor: { ...createSandboxProcessor(), name: 'acquirer' } });
  const realSandbox = useSandboxes(() => ({ TILL_URL: real().url }));

  it('refuses, naming the processor and the checkout page', async () => {
    const merchant = await createMerchant(real());
    const product = await createProduct(merchant);
    const cli = realSandbox({ TILL_TOKEN: merchant.owner.token });
    const id = (await cli.run(['checkouts', 'create', '--product', product.id, '-q'])).stdout.trim();
    const refused = await cli.run(['checkouts', 'pay', id, '--card', '4242424242424242', '--country', 'DE']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("the daemon's payment processor is acquirer, not the sandbox");
    expect((await cli.run(['checkouts', 'show', id, '--json'])).json).toMatchObject({ status: 'open' });
  });
});

describe('till products --field, discounts show, links update and delete', () => {
  it('attaches custom fields to a product, replaces and removes them', async () => {
    const { merchant, cli } = await merchantCli();
    const company = await createCustomFieldVia(merchant, 'company');
    const vat = await createCustomFieldVia(merchant, 'vat');
    const created = await cli.run([
      'products',
      'create',
      '--name',
      'Workshop',
      '--price',
      '9900',
      '--field',
      `${company.id}:required`,
      '--field',
      vat.id,
      '--json',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(
      created.json.attached_custom_fields.map((f: { custom_field_id: string; required: boolean }) => [
        f.custom_field_id,
        f.required,
      ]),
    ).toEqual([
      [company.id, true],
      [vat.id, false],
    ]);
    const shown = await cli.run(['products', 'show', created.json.id]);
    expect(shown.stdout).toContain(`custom field Company, required (${company.id})`);

    const replaced = await cli.run(['products', 'update', created.json.id, '--field', `${vat.id}:required`, '--json']);
    expect(replaced.json.attached_custom_fields).toMatchObject([{ custom_field_id: vat.id, required: true }]);
    const removed = await cli.run(['products', 'update', created.json.id, '--no-fields', '--json']);
    expect(removed.json.attached_custom_fields).toEqual([]);

    const bad = await cli.run(['products', 'update', created.json.id, '--field', `${vat.id}:mandatory`]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--field takes a custom field id');
  });

  it('shows a discount in currency units, and says which one is not found', async () => {
    const { merchant, cli } = await merchantCli();
    const discount = await createDiscount(merchant, {
      name: 'Loyal',
      type: 'fixed',
      basis_points: undefined,
      amount: 625,
      currency: 'eur',
      code: 'LOYAL',
      max_redemptions: 10,
    });
    const shown = await cli.run(['discounts', 'show', discount.id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/discount:\s+6\.25 EUR off, once/);
    expect(shown.stdout).toMatch(/code:\s+LOYAL/);
    expect(shown.stdout).toMatch(/redeemed:\s+0 of 10/);
    expect((await cli.run(['discounts', 'show', discount.id, '--json'])).json).toMatchObject({ id: discount.id });
    const missing = await cli.run(['discounts', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('discount 00000000-0000-4000-8000-000000000000 not found');
    const order = await cli.run(['orders', 'show', 'nope']);
    expect(order.exitCode).toBe(1);
    expect(order.stderr).toContain('order nope not found');
  });

  it('updates and deletes a checkout link', async () => {
    const { merchant, cli } = await merchantCli();
    const first = await createProduct(merchant, { name: 'First' });
    const second = await createProduct(merchant, { name: 'Second' });
    const created = await cli.run(['links', 'create', '--product', first.id, '--label', 'old', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    const id = created.json.id as string;

    const nothing = await cli.run(['links', 'update', id]);
    expect(nothing.exitCode).toBe(2);
    const updated = await cli.run([
      'links',
      'update',
      id,
      '--product',
      second.id,
      '--label',
      'spring',
      '--no-discount-codes',
      '--json',
    ]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({ id, label: 'spring', allow_discount_codes: false, url: created.json.url });
    expect(updated.json.products.map((p: { id: string }) => p.id)).toEqual([second.id]);
    const cleared = await cli.run(['links', 'update', id, '--label', 'none']);
    expect(cleared.exitCode, cleared.stderr).toBe(0);
    expect(cleared.stderr).toContain(`Updated checkout link ${id}: Second`);

    const deleted = await cli.run(['links', 'delete', id]);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect((await cli.run(['links', 'list', '--json'])).json).toEqual([]);
    const gone = await cli.run(['links', 'delete', id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toContain(`checkout link ${id} not found`);
  });
});

describe('till webhooks endpoints create and refunds, as issue 21 asks', () => {
  it('subscribes to every event type without --event, and names the setting a private URL needs', async () => {
    const { cli } = await merchantCli();
    // A literal public address: nothing to resolve, and not private.
    const created = await cli.run(['webhooks', 'endpoints', 'create', 'https://93.184.215.14/hooks', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect([...created.json.events].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const said = await cli.run(['webhooks', 'endpoints', 'create', 'https://93.184.215.14/other']);
    expect(said.stderr).toContain(`all ${WEBHOOK_EVENT_TYPES.length} event types, since no --event was given`);
    const help = await cli.run(['webhooks', 'endpoints', 'create', '--help']);
    expect(help.stdout).toContain('Without --event the endpoint is subscribed to every event type');

    const refused = await cli.run(['webhooks', 'endpoints', 'create', 'http://127.0.0.1:9/hooks']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('TILL_WEBHOOK_ALLOW_PRIVATE_URLS=true');
  });

  it('states the refundable amount in currency units', async () => {
    const { merchant, cli } = await merchantCli();
    const { order } = await paidOrder(daemon(), merchant, 625);
    const tooMuch = await cli.run(['refunds', 'create', '--order', order.id, '--amount', '700', '--yes']);
    expect(tooMuch.exitCode).toBe(1);
    expect(tooMuch.stderr).toContain('Refund amount exceeds the refundable amount of the order (6.25 USD)');
  });
});

describe('till open and -q', () => {
  it('prints a checkout page and a fresh portal link, and opens one with --browser', async () => {
    const { cli } = await merchantCli();
    const product = await cli.run(['products', 'create', '--name', 'Guide', '--price', '1500', '-q']);
    expect(product.exitCode, product.stderr).toBe(0);
    expect(product.stdout).toMatch(/^[0-9a-f-]{36}$/);
    expect(product.stderr).toBe('');
    const checkout = await cli.run(['checkouts', 'create', '--product', product.stdout, '--json']);
    const page = await cli.run(['open', 'checkout', checkout.json.id]);
    expect(page.exitCode, page.stderr).toBe(0);
    expect(page.stdout).toBe(checkout.json.url);

    const customer = await cli.run(['customers', 'create', '--email', 'ada@example.com', '-q']);
    expect(customer.stderr).toBe('');
    const portal = await cli.run(['open', 'portal', customer.stdout, '--json']);
    expect(portal.exitCode, portal.stderr).toBe(0);
    expect(portal.json).toMatchObject({ page: 'portal', id: customer.stdout });
    expect(portal.json.url).toMatch(/^http/);
    const named = await cli.run(['customers', 'portal', customer.stdout]);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.stdout.trim()).toMatch(/\/portal\/[^?]+\?customer_session_token=/);
    // Each call is a session of its own: the two URLs differ.
    expect(named.stdout.trim()).not.toBe(portal.json.url);

    // A stand-in xdg-open on PATH records what it was asked to open.
    const bin = join(cli.root, 'bin');
    mkdirSync(bin);
    const opened = join(cli.root, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > "${opened}"\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const browser = await cli.run(['open', 'checkout', checkout.json.id, '--browser'], {
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(browser.exitCode, browser.stderr).toBe(0);
    expect(browser.stdout).toBe('');
    await eventually(async () => existsSync(opened) && readFileSync(opened, 'utf8').trim(), checkout.json.url);

    const link = await cli.run(['links', 'create', '--product', product.stdout, '-q']);
    expect(link.stdout).toMatch(/^[0-9a-f-]{36}$/);
    const discount = await cli.run([
      'discounts',
      'create',
      '--name',
      'Ten',
      '--percent',
      '10',
      '--duration',
      'once',
      '-q',
    ]);
    expect(discount.stdout).toMatch(/^[0-9a-f-]{36}$/);
    expect(discount.stderr).toBe('');
    expect((await cli.run(['open', 'invoice', 'x'])).exitCode).toBe(2);
  });
});
