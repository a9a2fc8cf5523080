import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

/** A merchant whose organization access token the CLI uses, and a customer subscribed with tok_visa. */
async function subscribedCustomer(scopes?: string[]) {
  const merchant = await createMerchant(daemon);
  const product = await createProduct(merchant, { recurring_interval: 'month' });
  const bought = await purchase(daemon, merchant, product.id);
  const token = scopes ? (await createMerchant(daemon, { scopes })).token : merchant.token;
  const cli = new Sandbox({ TILL_URL: daemon.url, TILL_TOKEN: token });
  sandboxes.push(cli);
  return { cli, customerId: bought.customerId };
}

describe('till customers payment-methods', () => {
  it('lists the card a checkout saved, adds one as the default and removes the old one', async () => {
    const { cli, customerId } = await subscribedCustomer();
    const listed = await cli.run(['customers', 'payment-methods', 'list', customerId]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/\tvisa\t4242\t12\/2034\tyes\t/);
    const first = (await cli.run(['customers', 'payment-methods', 'list', customerId, '--json'])).json[0].id;

    daemon.clock.advance(1000); // newest first: the new card after the saved one
    const added = await cli.run([
      'customers',
      'payment-methods',
      'add',
      customerId,
      '--token',
      'tok_mastercard',
      '--default',
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain('saved mastercard •••• 4444 as the default');
    const addedId = added.stdout.trim();
    const both = (await cli.run(['customers', 'payment-methods', 'list', customerId, '--json'])).json;
    expect(both.map((method: { id: string; is_default: boolean }) => [method.id, method.is_default])).toEqual([
      [addedId, true],
      [first, false],
    ]);

    const removed = await cli.run(['customers', 'payment-methods', 'remove', customerId, first]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const left = (await cli.run(['customers', 'payment-methods', 'list', customerId, '--json'])).json;
    expect(left.map((method: { id: string }) => method.id)).toEqual([addedId]);
  });

  it('reports the daemon’s refusals and exits 1', async () => {
    const { cli, customerId } = await subscribedCustomer();
    const declined = await cli.run([
      'customers',
      'payment-methods',
      'add',
      customerId,
      '--token',
      'tok_chargeDeclined',
    ]);
    expect(declined.exitCode).toBe(1);
    expect(declined.stderr).toContain('Could not add this payment method: Your card was declined.');

    const only = (await cli.run(['customers', 'payment-methods', 'list', customerId, '--json'])).json[0].id;
    const inUse = await cli.run(['customers', 'payment-methods', 'remove', customerId, only]);
    expect(inUse.exitCode).toBe(1);
    expect(inUse.stderr).toContain('Cannot delete payment method');

    const missing = await cli.run(['customers', 'payment-methods', 'add', customerId]);
    expect(missing.exitCode).toBe(2);
  });

  it("hides another organization's customer, and --help says why add and remove need customer_sessions:write", async () => {
    const { cli, customerId } = await subscribedCustomer(['customers:read']);
    // Another organization's token: the customer is not found either way.
    expect((await cli.run(['customers', 'payment-methods', 'list', customerId])).exitCode).toBe(1);
    const help = await cli.run(['customers', 'payment-methods', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('customer_sessions:write');
    expect(help.stdout).toContain('not add or delete one');
  });
});
