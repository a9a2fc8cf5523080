import { fileURLToPath } from 'node:url';
import { cleanup, render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DiscountDraft } from '../../src/cli/commands/discounts/shared.js';
import { DiscountForm } from '../../src/cli/tui/discount-form/index.js';
import { createProduct } from '../helpers/discount-fixtures.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/eventually.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

afterEach(() => cleanup());

/** A CLI signed in as a merchant's owner (TILL_TOKEN holds their session token, as CI would hold a key). */
async function merchantCli() {
  const merchant = await createMerchant(daemon());
  return { merchant, cli: sandbox({ TILL_TOKEN: merchant.owner.token }) };
}

describe('till discounts', () => {
  it('creates, lists, updates and deletes discounts', async () => {
    const { merchant, cli } = await merchantCli();
    const product = await createProduct(merchant.api, { name: 'Ebook' });

    const percent = await cli.run([
      'discounts',
      'create',
      '--name',
      'Launch',
      '--code',
      'LAUNCH',
      '--percent',
      '12.5',
      '--duration',
      'once',
      '--json',
    ]);
    expect(percent.exitCode, percent.stderr).toBe(0);
    expect(percent.json).toMatchObject({
      name: 'Launch',
      code: 'LAUNCH',
      type: 'percentage',
      basis_points: 1250,
      duration: 'once',
      organization_id: merchant.organization.id,
    });

    const fixed = await cli.run([
      'discounts',
      'create',
      '--name',
      'Loyal',
      '--amount',
      '500',
      '--currency',
      'EUR',
      '--duration',
      'repeating',
      '--months',
      '3',
      '--max-redemptions',
      '10',
      '--starts-at',
      '2026-12-01',
      '--ends-at',
      '2027-01-01T00:00:00Z',
      '--product',
      product.id,
    ]);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    const fixedId = fixed.stdout.trim();
    expect(fixedId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fixed.stderr).toContain('Created discount "Loyal": 5.00 EUR off, for 3 months.');
    const shown = await merchant.api.get(`/v1/discounts/${fixedId}`);
    expect(shown.json).toMatchObject({
      amount: 500,
      currency: 'eur',
      duration_in_months: 3,
      max_redemptions: 10,
      starts_at: '2026-12-01T00:00:00.000Z',
      products: [expect.objectContaining({ id: product.id })],
    });

    const list = await cli.run(['discounts', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json.map((discount: { name: string }) => discount.name).sort()).toEqual(['Launch', 'Loyal']);
    const table = await cli.run(['discounts', 'list', '--query', 'launch']);
    expect(table.stdout.replace(/\n$/, '').split('\n')).toEqual([
      `${percent.json.id}\tLaunch\tLAUNCH\t12.5% off, once\t0\t`,
    ]);

    const updated = await cli.run([
      'discounts',
      'update',
      fixedId,
      '--amount',
      '700',
      '--max-redemptions',
      'none',
      '--code',
      'LOYAL7',
      '--json',
    ]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    // The currency stays the discount's own unless --currency is given.
    expect(updated.json).toMatchObject({ amount: 700, currency: 'eur', max_redemptions: null, code: 'LOYAL7' });
    expect((await cli.run(['discounts', 'update', fixedId])).exitCode).toBe(2);

    const deleted = await cli.run(['discounts', 'delete', fixedId, '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ deleted: true, id: fixedId });
    const again = await cli.run(['discounts', 'delete', fixedId]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`discount ${fixedId} not found (ResourceNotFound)`);
    expect((await cli.run(['discounts', 'list', '--json'])).json).toHaveLength(1);
  });

  it('never asks without a terminal: missing flags are a usage error that names them, and no Ink is loaded', async () => {
    const { cli } = await merchantCli();
    const missing = await cli.run(['discounts', 'create', '--percent', '10'], { nodeArgs: FORBID_HEAVY });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('missing --name, --duration');
    expect(missing.stderr).not.toContain('forbidden module');
    const months = await cli.run(['discounts', 'create', '--name', 'X', '--amount', '100', '--duration', 'repeating']);
    expect(months.exitCode).toBe(2);
    expect(months.stderr).toContain('missing --months');
    const help = await cli.run(['discounts', 'create', '--help'], { nodeArgs: FORBID_HEAVY });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--max-redemptions');
  });

  it('refuses bad values before calling the daemon, and reports the daemon’s refusals', async () => {
    const { cli } = await merchantCli();
    for (const [args, message] of [
      [['--percent', '150'], '--percent takes a percentage'],
      [['--percent', '10', '--amount', '5'], 'either --percent or --amount'],
      [['--amount', '4.99'], '--amount takes a whole number'],
      [['--percent', '10', '--duration', 'weekly'], '--duration takes once, forever or repeating'],
      [['--percent', '10', '--starts-at', 'soon'], '--starts-at takes a date'],
    ] as const) {
      const result = await cli.run(['discounts', 'create', '--name', 'Bad', '--duration', 'once', ...args]);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(
      (
        await cli.run([
          'discounts',
          'create',
          '--name',
          'First',
          '--code',
          'DUP',
          '--percent',
          '5',
          '--duration',
          'once',
        ])
      ).exitCode,
    ).toBe(0);
    const duplicate = await cli.run([
      'discounts',
      'create',
      '--name',
      'Second',
      '--code',
      'dup',
      '--percent',
      '5',
      '--duration',
      'once',
    ]);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toContain('code: Discount with this code already exists. (RequestValidationError)');
    const signedOut = await sandbox().run(['discounts', 'list']);
    expect(signedOut.exitCode).toBe(4);
  });
});

describe('till links', () => {
  it('creates checkout links and lists them', async () => {
    const { merchant, cli } = await merchantCli();
    const first = await createProduct(merchant.api, { name: 'Starter' });
    const second = await createProduct(merchant.api, { name: 'Pro' });
    const discount = await merchant.api.post('/v1/discounts/', {
      name: 'Ten',
      type: 'percentage',
      basis_points: 1000,
      duration: 'once',
    });

    const created = await cli.run([
      'links',
      'create',
      '--product',
      first.id,
      '--product',
      second.id,
      '--discount',
      discount.json.id,
      '--success-url',
      'https://shop.example/ok?c={CHECKOUT_ID}',
      '--label',
      'Mail',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(
      new RegExp(`^${daemon().url}/v1/checkout-links/till_cl_[A-Za-z0-9]+/redirect$`),
    );
    expect(created.stderr).toContain('for Starter, Pro');
    daemon().clock.advance(1000);
    const json = await cli.run([
      'links',
      'create',
      '--product',
      second.id,
      '--no-discount-codes',
      '--require-billing-address',
      '--json',
    ]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.json).toMatchObject({
      allow_discount_codes: false,
      require_billing_address: true,
      products: [expect.objectContaining({ id: second.id })],
    });

    const list = await cli.run(['links', 'list', '--json']);
    expect(list.json).toHaveLength(2);
    expect(list.json[0]).toMatchObject({
      label: 'Mail',
      discount_id: discount.json.id,
      success_url: 'https://shop.example/ok?c={CHECKOUT_ID}',
    });
    const forFirst = await cli.run(['links', 'list', '--product', first.id]);
    expect(forFirst.stdout.trim().split('\n')).toHaveLength(1);
    expect(forFirst.stdout).toContain('Starter, Pro\tTen\t');

    const other = await createMerchant(daemon());
    const foreign = await createProduct(other.api);
    const refused = await cli.run(['links', 'create', '--product', foreign.id]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('products.0: Product does not exist.');
    expect((await cli.run(['links', 'create'])).exitCode).toBe(2);
  });
});

describe('the discount form (Ink)', () => {
  function form(initial: DiscountDraft) {
    let submitted: DiscountDraft | undefined;
    let cancelled = false;
    const screen = render(
      createElement(DiscountForm, {
        initial,
        onSubmit: (draft) => (submitted = draft),
        onCancel: () => (cancelled = true),
      }),
    );
    const frame = () => screen.lastFrame() ?? '';
    const press = async (keys: string, shows: string | RegExp) => {
      screen.stdin.write(keys);
      const seen = await eventually(
        async () => (typeof shows === 'string' ? frame().includes(shows) : shows.test(frame())),
        true,
      );
      expect(seen, `expected "${shows}" in:\n${frame()}`).toBe(true);
    };
    const waitFor = (test: () => boolean) => eventually(async () => test(), true);
    return { frame, press, waitFor, result: () => submitted, cancelled: () => cancelled };
  }

  it('asks only for what is missing, checking each answer', async () => {
    const ui = form({ code: 'SPRING' });
    await ui.waitFor(() => ui.frame().includes('Name customers see'));
    // Typed and confirmed in one go, as a paste or a fast typist sends it.
    await ui.press('Spring\r', 'Percentage or fixed amount off');
    expect(ui.frame()).toContain('Discount: Spring');
    await ui.press('\u001B[C', 'Percentage or fixed amount off');
    await ui.press('\r', 'Amount off in minor units');
    await ui.press('4.5', '4.5');
    await ui.press('\r', 'Enter a whole number of minor units');
    await ui.press('\u007F', /\$5\.00\): 4\.\s*$/m);
    await ui.press('\u007F', /\$5\.00\): 4\s*$/m);
    await ui.press('\u007F', /\$5\.00\):\s*$/m);
    await ui.press('450', '450');
    await ui.press('\r', 'Currency');
    expect(ui.frame()).toContain('usd');
    await ui.press('\r', 'How long it applies');
    await ui.press('\u001B[C\u001B[C', 'How long it applies');
    await ui.press('\r', 'For how many months');
    await ui.press('0', '0');
    await ui.press('\r', 'Enter a whole number from 1 to 999');
    await ui.press('\u007F', 'For how many months');
    await ui.press('6', ': 6');
    await ui.press('\r', 'Creating the discount');
    expect(await ui.waitFor(() => ui.result() !== undefined)).toBe(true);
    expect(ui.result()).toEqual({
      code: 'SPRING',
      name: 'Spring',
      amount: '450',
      currency: 'usd',
      duration: 'repeating',
      months: '6',
    });
  });

  it('skips what the flags gave and cancels with Esc', async () => {
    const ui = form({ name: 'Given', percent: '10' });
    await ui.waitFor(() => ui.frame().includes('How long it applies'));
    expect(ui.frame()).not.toContain('Name customers see');
    await ui.press('\u001B', 'How long it applies');
    expect(await ui.waitFor(() => ui.cancelled())).toBe(true);
    expect(ui.result()).toBeUndefined();
  });
});
