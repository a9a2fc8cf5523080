import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, useSandboxes } from './till.js';

const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

/** A signed-up user in their own sandbox, owning one organization. */
async function merchant() {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Pia', '--email', uniqueEmail('products'), '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  const slug = `shop-${Math.random().toString(36).slice(2, 8)}`;
  const org = await cli.run(['org', 'create', '--name', 'Shop', '--slug', slug, '--json']);
  expect(org.exitCode, org.stderr).toBe(0);
  return { cli, slug, orgId: org.json.id as string };
}

describe('till products', () => {
  it('creates, lists, shows, reprices, archives and unarchives a product', async () => {
    const { cli, slug, orgId } = await merchant();
    const created = await cli.run([
      'products',
      'create',
      '--name',
      'E-book',
      '--price',
      '1500',
      '--description',
      'A book',
      '--metadata',
      'sku=B-1',
      '--metadata',
      'pages=320',
      '--org',
      slug,
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.stderr).toContain('Created product "E-book" (one-time, 15.00 USD)');

    const shown = await cli.run(['products', 'show', id, '--json']);
    expect(shown.json).toMatchObject({
      id,
      name: 'E-book',
      description: 'A book',
      organization_id: orgId,
      metadata: { sku: 'B-1', pages: 320 },
      prices: [{ amount_type: 'fixed', price_amount: 1500, price_currency: 'usd' }],
    });
    const oldPrice = shown.json.prices[0].id as string;
    const text = await cli.run(['products', 'show', id]);
    expect(text.stdout).toMatch(/name\s+E-book/);
    expect(text.stdout).toContain(`15.00 USD (${oldPrice})`);

    const repriced = await cli.run([
      'products',
      'update',
      id,
      '--custom-price',
      '500,10000,1500',
      '--currency',
      'eur',
      '--json',
    ]);
    expect(repriced.exitCode, repriced.stderr).toBe(0);
    expect(repriced.json.prices).toEqual([
      expect.objectContaining({
        amount_type: 'custom',
        price_currency: 'eur',
        minimum_amount: 500,
        maximum_amount: 10_000,
        preset_amount: 1500,
      }),
    ]);
    expect(repriced.json.prices[0].id).not.toBe(oldPrice);
    const archivedPrice = await daemon.core.db('product_prices').where({ id: oldPrice }).first();
    expect(Boolean(archivedPrice.is_archived)).toBe(true);

    const archived = await cli.run(['products', 'archive', id]);
    expect(archived.exitCode, archived.stderr).toBe(0);
    expect(archived.stderr).toContain('--unarchive');
    expect((await cli.run(['products', 'list', '--no-archived', '--json'])).json.items).toEqual([]);
    expect(
      (await cli.run(['products', 'list', '--archived', '--json'])).json.items.map((item: any) => item.id),
    ).toEqual([id]);
    const back = await cli.run(['products', 'update', id, '--unarchive', '--name', 'E-book 2', '--json']);
    expect(back.json).toMatchObject({ is_archived: false, name: 'E-book 2' });

    const table = await cli.run(['products', 'list']);
    expect(table.stdout.trim().split('\t')).toEqual([
      id,
      'E-book 2',
      'one-time',
      'pay what you want from 5.00 EUR to 100.00 EUR',
      'no',
      expect.any(String),
    ]);
  });

  it('makes subscriptions with benefits, filters them, and reads every page with --all', async () => {
    const { cli } = await merchant();
    const benefit = await cli.run([
      'benefits',
      'create',
      '--type',
      'custom',
      '--description',
      'Office hours',
      '--note',
      'Book a slot',
    ]);
    expect(benefit.exitCode, benefit.stderr).toBe(0);
    const benefitId = benefit.stdout.trim();
    const plan = await cli.run([
      'products',
      'create',
      '--name',
      'Pro',
      '--recurring',
      'month',
      '--interval-count',
      '3',
      '--price',
      '2900',
      '--benefit',
      benefitId,
      '--json',
    ]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.json).toMatchObject({
      recurring_interval: 'month',
      recurring_interval_count: 3,
      is_recurring: true,
      benefits: [{ id: benefitId, description: 'Office hours' }],
    });
    for (const name of ['Alpha', 'Beta', 'Gamma'])
      expect((await cli.run(['products', 'create', '--name', name, '--free'])).exitCode).toBe(0);

    expect(
      (await cli.run(['products', 'list', '--recurring', '--json'])).json.items.map((item: any) => item.name),
    ).toEqual(['Pro']);
    expect(
      (await cli.run(['products', 'list', '--benefit', benefitId, '--json'])).json.items.map((item: any) => item.name),
    ).toEqual(['Pro']);
    expect(
      (await cli.run(['products', 'list', '--query', 'alp', '--json'])).json.items.map((item: any) => item.name),
    ).toEqual(['Alpha']);
    const all = await cli.run(['products', 'list', '--all', '--limit', '1', '--sort', 'name', '--json']);
    expect(all.json.items.map((item: any) => item.name)).toEqual(['Alpha', 'Beta', 'Gamma', 'Pro']);
    expect(all.json.pagination).toEqual({ total_count: 4, max_page: 4 });

    const cleared = await cli.run(['products', 'update', plan.json.id, '--no-benefits', '--json']);
    expect(cleared.json.benefits).toEqual([]);
  });

  it('never prompts without a terminal: missing flags exit 2, naming them, and Ink is never loaded', async () => {
    const { cli } = await merchant();
    const nothing = await cli.run(['products', 'create'], { nodeArgs: FORBID_HEAVY });
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain('missing --name and a price (--price, --custom-price or --free)');
    const noPrice = await cli.run(['products', 'create', '--name', 'Book'], { nodeArgs: FORBID_HEAVY });
    expect(noPrice.exitCode).toBe(2);
    expect(noPrice.stderr).not.toContain('--name and');
    expect(noPrice.stderr).toContain('missing a price');
    const noName = await cli.run(['products', 'create', '--free'], { nodeArgs: FORBID_HEAVY });
    expect(noName.exitCode).toBe(2);
    expect(noName.stderr).toContain('missing --name;');
    const help = await cli.run(['products', 'create', '--help'], { nodeArgs: FORBID_HEAVY });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--custom-price <min,max,preset>');
    expect((await cli.run(['products', 'list'])).stdout).toBe('');
  });

  it('reports usage errors (exit 2), the daemon’s refusals (exit 1) and a missing sign-in (exit 4)', async () => {
    const { cli } = await merchant();
    for (const args of [
      ['--name', 'Book', '--price', '15.00'],
      ['--name', 'Book', '--price', '1500', '--free'],
      ['--name', 'Book', '--price', '1500', '--currency', 'dollars'],
      ['--name', 'Book', '--price', '1500', '--recurring', 'fortnight'],
      ['--name', 'Book', '--custom-price', '1,2,3,4'],
      ['--name', 'Book', '--price', '1500', '--metadata', 'novalue'],
      ['--name', 'Book', '--price', '1500', '--interval-count', '2'],
    ]) {
      const result = await cli.run(['products', 'create', ...args]);
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
    const refused = await cli.run(['products', 'create', '--name', 'Book', '--custom-price', '1000,500']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('prices.0.maximum_amount');
    const short = await cli.run(['products', 'create', '--name', 'B', '--free']);
    expect(short.exitCode).toBe(1);
    expect(short.stderr).toMatch(/name: /);
    expect((await cli.run(['products', 'update', '0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41'])).exitCode).toBe(2);
    const missing = await cli.run(['products', 'show', '0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('product 0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41 not found');
    expect((await sandbox().run(['products', 'list'])).exitCode).toBe(4);
  });

  it('works with an organization access token in TILL_TOKEN, as CI would', async () => {
    const { cli, orgId } = await merchant();
    const token = await cli.run(['tokens', 'create', '--comment', 'ci', '--scope', 'products:write']);
    expect(token.exitCode, token.stderr).toBe(0);
    const ci = sandbox({ TILL_TOKEN: token.stdout.trim() });
    const created = await ci.run(['products', 'create', '--name', 'From CI', '--price', '999', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.json.organization_id).toBe(orgId);
    expect((await ci.run(['products', 'list', '--json'])).json.items.map((item: any) => item.name)).toEqual([
      'From CI',
    ]);
  });
});
