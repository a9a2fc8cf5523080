import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { TILL_BIN, useSandboxes } from './till.js';

const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
// Printing commands must never load Ink, React, Koa, Knex or the daemon: this hook makes any such import throw.
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

async function merchantCli() {
  const merchant = await createMerchant(daemon());
  return { merchant, cli: sandbox({ TILL_TOKEN: merchant.owner.token }) };
}

describe('till checkouts, orders, subscriptions and refunds', () => {
  it('creates and shows a checkout, then lists and shows the order it made', async () => {
    const { merchant, cli } = await merchantCli();
    const product = await createProduct(merchant, { name: 'Guide' });
    const created = await cli.run(
      [
        'checkouts',
        'create',
        '--product',
        product.id,
        '--email',
        'ada@example.com',
        '--success-url',
        'https://shop.example/ok',
      ],
      { nodeArgs: FORBID_HEAVY },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const url = created.stdout.trim();
    expect(url).toMatch(new RegExp(`^${daemon().url}/checkout/till_c_`));
    const json = await cli.run([
      'checkouts',
      'create',
      '--product',
      product.id,
      '--price',
      product.prices[0]!.id,
      '--json',
    ]);
    expect(json.json).toMatchObject({ status: 'open', product_id: product.id, total_amount: 1000 });
    const shown = await cli.run(['checkouts', 'show', json.json.id], { nodeArgs: FORBID_HEAVY });
    expect(shown.stdout).toMatch(/status:\s+open/);
    expect(shown.stdout).toContain('10.00 USD');

    const secret = url.slice(url.lastIndexOf('/') + 1);
    const confirm = await fetch(`${daemon().url}/v1/checkouts/client/${secret}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_billing_address: { country: 'DE' }, confirmation_token_id: 'tok_visa' }),
    });
    expect(confirm.status).toBe(200);
    const orders = await cli.run(['orders', 'list', '--json'], { nodeArgs: FORBID_HEAVY });
    expect(orders.exitCode, orders.stderr).toBe(0);
    expect(orders.json).toHaveLength(1);
    expect(orders.json[0]).toMatchObject({ status: 'paid', total_amount: 1000, product_id: product.id });
    const table = await cli.run(['orders', 'list', '--status', 'paid']);
    expect(table.stdout).toContain(`${orders.json[0].id}\t`);
    expect(table.stdout).toContain('ada@example.com');
    const order = await cli.run(['orders', 'show', orders.json[0].id], { nodeArgs: FORBID_HEAVY });
    expect(order.stdout).toMatch(/refundable:\s+10\.00 USD/);
    expect((await cli.run(['orders', 'show', '00000000-0000-4000-8000-000000000000'])).exitCode).toBe(1);
  });

  it('cancels, uncancels and revokes subscriptions', async () => {
    const { merchant, cli } = await merchantCli();
    const { subscriptionId } = await paidOrder(daemon(), merchant, 900, 'month');
    const list = await cli.run(['subscriptions', 'list', '--active', '--json'], { nodeArgs: FORBID_HEAVY });
    expect(list.json.map((s: { id: string }) => s.id)).toEqual([subscriptionId]);

    const canceled = await cli.run([
      'subscriptions',
      'cancel',
      subscriptionId!,
      '--reason',
      'too_expensive',
      '--comment',
      'Pricey',
      '--json',
    ]);
    expect(canceled.exitCode, canceled.stderr).toBe(0);
    expect(canceled.json).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: 'too_expensive',
      customer_cancellation_comment: 'Pricey',
    });
    const again = await cli.run(['subscriptions', 'cancel', subscriptionId!]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('AlreadyCanceledSubscription');
    const badReason = await cli.run(['subscriptions', 'revoke', subscriptionId!, '--reason', 'bored']);
    expect(badReason.exitCode).toBe(1);

    const uncanceled = await cli.run(['subscriptions', 'uncancel', subscriptionId!]);
    expect(uncanceled.exitCode, uncanceled.stderr).toBe(0);
    expect(uncanceled.stderr).toContain('continues');
    const revoked = await cli.run(['subscriptions', 'revoke', subscriptionId!, '--json']);
    expect(revoked.json).toMatchObject({ status: 'canceled' });
    const shown = await cli.run(['subscriptions', 'show', subscriptionId!], { nodeArgs: FORBID_HEAVY });
    expect(shown.stdout).toMatch(/status:\s+canceled/);
    expect((await cli.run(['subscriptions', 'list', '--status', 'canceled'])).stdout).toContain(subscriptionId!);
  });

  it('refunds only with --yes or a terminal’s yes, and lists refunds', async () => {
    const { merchant, cli } = await merchantCli();
    const { order } = await paidOrder(daemon(), merchant, 1000);

    const unconfirmed = await cli.run(['refunds', 'create', '--order', order.id, '--amount', '300']);
    expect(unconfirmed.exitCode).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await cli.run(['refunds', 'create', '--order', order.id, '--amount', '3.50', '--yes'])).exitCode).toBe(2);
    expect((await cli.run(['refunds', 'create', '--order', order.id, '--reason', 'boredom', '--yes'])).exitCode).toBe(
      2,
    );

    const partial = await cli.run([
      'refunds',
      'create',
      '--order',
      order.id,
      '--amount',
      '300',
      '--reason',
      'duplicate',
      '--comment',
      'Charged twice',
      '--yes',
      '--json',
    ]);
    expect(partial.exitCode, partial.stderr).toBe(0);
    expect(partial.json).toMatchObject({ status: 'succeeded', amount: 300, reason: 'duplicate' });
    const tooMuch = await cli.run(['refunds', 'create', '--order', order.id, '--amount', '800', '--yes']);
    expect(tooMuch.exitCode).toBe(1);
    expect(tooMuch.stderr).toContain('Refund amount exceeds the refundable amount of the order (7.00 USD)');

    // At a terminal (a pseudo-terminal from script(1)), "n" refuses and "y" refunds what is left.
    const atTerminal = (answer: string) =>
      execa('script', ['-qec', `"${process.execPath}" "${TILL_BIN}" refunds create --order ${order.id}`, '/dev/null'], {
        reject: false,
        input: `${answer}\n`,
        env: { ...cli.environment(), TERM: 'dumb' },
        extendEnv: false,
      });
    const declined = await atTerminal('n');
    expect(declined.exitCode).toBe(2);
    expect(String(declined.stdout)).toContain('Refund 7.00 USD');
    const accepted = await atTerminal('y');
    expect(accepted.exitCode, String(accepted.stdout)).toBe(0);

    const refunds = await cli.run(['refunds', 'list', '--order', order.id, '--json'], { nodeArgs: FORBID_HEAVY });
    expect(refunds.json.map((r: { amount: number }) => r.amount).sort()).toEqual([300, 700]);
    const table = await cli.run(['refunds', 'list']);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    expect((await merchant.api.get(`/v1/orders/${order.id}`)).json.status).toBe('refunded');
    const nothingLeft = await cli.run(['refunds', 'create', '--order', order.id, '--yes']);
    expect(nothingLeft.exitCode).toBe(1);
  });
});
