import { describe, expect, it } from 'vitest';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

// Issue 21 item 11: a flag the daemon would refuse is a usage error (exit 2) naming the flag in plain words, and
// nothing is sent. Each bad run below would otherwise reach the daemon (signed in, a daemon listening).
const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));

async function merchantCli() {
  const merchant = await createMerchant(daemon());
  return { merchant, cli: sandbox({ TILL_TOKEN: merchant.owner.token }) };
}

describe('flags checked before anything is sent', () => {
  it('refuses bad pages, limits, times and statuses with exit 2 and the flag named', async () => {
    const { cli } = await merchantCli();
    const cases: Array<[string[], string]> = [
      [
        ['webhooks', 'deliveries', '--limit', '500'],
        'invalid --limit: must be a whole number from 1 to 100 (got "500")',
      ],
      [['webhooks', 'deliveries', '--page', 'two'], 'invalid --page: must be a whole number of 1 or more (got "two")'],
      [
        ['webhooks', 'deliveries', '--since', 'yesterday'],
        'invalid --since: must be an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T09:30:00Z (got "yesterday")',
      ],
      [['webhooks', 'deliveries', '--until', '2026-02-30'], 'invalid --until: must be an ISO 8601 date or time'],
      [['products', 'list', '--limit', '0'], 'invalid --limit: must be a whole number from 1 to 100 (got "0")'],
      [['benefits', 'list', '--page', '1.5'], 'invalid --page: must be a whole number of 1 or more (got "1.5")'],
      [
        ['orders', 'list', '--status', 'done'],
        'invalid --status: must be one of pending, paid, refunded, partially_refunded (got "done")',
      ],
      [['subscriptions', 'list', '--status', 'Active'], 'invalid --status: must be one of incomplete,'],
      [['orders', 'export', '--after', '31/01/2026'], 'invalid --after: must be an ISO 8601 date or time'],
      [['subscriptions', 'export', '--before', 'soon'], 'invalid --before: must be an ISO 8601 date or time'],
      [['api-keys', 'create', '--expires-in', '1.5'], 'invalid --expires-in: must be a whole number of 1 or more'],
    ];
    for (const [args, message] of cases) {
      const result = await cli.run(args);
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    // With --json the same refusal is the one JSON error object.
    const json = await cli.run(['orders', 'list', '--status', 'done', '--json']);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage', status: null } });
  });

  it('passes good values on: a date becomes the UTC time the daemon takes', async () => {
    const { cli } = await merchantCli();
    const deliveries = await cli.run([
      'webhooks',
      'deliveries',
      '--since',
      '2026-01-01',
      '--until',
      '2026-01-31T09:30:00+02:00',
      '--limit',
      '100',
      '--json',
    ]);
    expect(deliveries.exitCode, deliveries.stderr).toBe(0);
    expect(deliveries.json.items).toEqual([]);
    const orders = await cli.run(['orders', 'list', '--status', 'paid', '--json']);
    expect(orders.exitCode, orders.stderr).toBe(0);
  });

  it('asks checkouts pay for --country when the checkout takes a payment and has no billing country', async () => {
    const { merchant, cli } = await merchantCli();
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id], { customer_email: 'ada@example.com' });
    const refused = await cli.run(['checkouts', 'pay', checkout.id, '--token', 'tok_visa']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('the checkout needs a billing country: give --country, e.g. --country DE');
    const paid = await cli.run(['checkouts', 'pay', checkout.id, '--token', 'tok_visa', '--country', 'NL']);
    expect(paid.exitCode, paid.stderr).toBe(0);
  });
});
