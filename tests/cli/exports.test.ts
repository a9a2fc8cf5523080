import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
// Printing commands must never load Ink, React, Koa, Knex or the daemon: this hook makes any such import throw.
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

describe('till orders|subscriptions|customers export', () => {
  it('writes the CSV to stdout or a file, with filters and columns, and reports bad input', async () => {
    const merchant = await createMerchant(daemon());
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    await paidOrder(daemon(), merchant, 1250);
    daemon().clock.advance(1000);
    const monthly = await paidOrder(daemon(), merchant, 900, 'month');

    const orders = await cli.run(['orders', 'export', '--columns', 'billing_reason,net_amount'], {
      nodeArgs: FORBID_HEAVY,
    });
    expect(orders.exitCode, orders.stderr).toBe(0);
    // execa strips the final line break.
    expect(orders.stdout.split('\r\n')).toEqual([
      'billing_reason,net_amount',
      'purchase,12.50',
      'subscription_create,9.00',
    ]);
    // Piped, stderr says which organization and carries no progress bar.
    expect(orders.stderr.trim()).toBe(`Organization: ${merchant.organization.slug}`);

    const file = join(cli.root, 'subscriptions.csv');
    const subscriptions = await cli.run(['subscriptions', 'export', '--columns', 'amount,status', '-o', file]);
    expect(subscriptions.exitCode, subscriptions.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('amount,status\r\n9.00,active\r\n');

    const customers = await cli.run(['customers', 'export']);
    expect(customers.stdout.split('\r\n').filter(Boolean)).toHaveLength(3);
    expect(customers.stdout).toContain(monthly.customerId);

    const bad = await cli.run(['orders', 'export', '--timezone', 'Mars/Olympus']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('timezone: Input should be a valid IANA time zone');
    expect(bad.stdout).toBe('');
  });
});
