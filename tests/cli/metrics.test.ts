import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

// `till metrics` against a real daemon (GET /v1/metrics/), and `till dashboard`'s refusal without a terminal.

let daemon: TestDaemon;
let merchant: Merchant;
let today: string;
/** The three orders' amounts before tax; the sandbox charges no tax without a billing address. */
let netAmounts: number[];
beforeAll(async () => {
  // The clock stands at the real time: the commands' default windows end today.
  daemon = await startTestDaemon(undefined, { clock: new ManualClock(new Date()) });
  today = daemon.clock.now().toISOString().slice(0, 10);
  merchant = await createMerchant(daemon, { name: 'Metrics Co' });
  const bought = [
    await paidOrder(daemon, merchant, 1900),
    await paidOrder(daemon, merchant, 4900, 'month'),
    await paidOrder(daemon, merchant, 2500),
  ];
  expect(bought.map(({ order }) => order.tax_amount)).toEqual([0, 0, 0]);
  netAmounts = bought.map(({ order }) => order.net_amount);
});
afterAll(async () => {
  await daemon?.stop();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url, TILL_TOKEN: merchant.owner.token }));

describe('till metrics', () => {
  it("prints the daemon's answer with --json, for the active organization", async () => {
    const result = await sandbox().run(['metrics', '--start', today, '--end', today, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(Object.keys(result.json).sort()).toEqual(['metrics', 'periods', 'totals']);
    expect(result.json.periods).toHaveLength(1);
    expect(result.json.totals.orders).toBe(3);
    expect(result.json.totals.revenue).toBe(netAmounts.reduce((total, amount) => total + amount, 0));
    expect(result.json.metrics.revenue).toMatchObject({ slug: 'revenue', type: 'currency' });
  });

  it('prints a table of periods by metric, amounts in currency units, with a TOTAL row', async () => {
    const result = await sandbox({ TILL_FORCE_TTY: '1' }).run(['metrics', '--metric', 'revenue,orders']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('Organization: ');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PERIOD\s+REVENUE\s+ORDERS$/);
    // Thirty days up to today, then the total.
    expect(lines).toHaveLength(1 + 30 + 1);
    expect(lines.at(-2)).toMatch(new RegExp(`^${today}\\s+93\\.00 USD\\s+3$`));
    expect(lines.at(-1)).toMatch(/^TOTAL\s+93\.00 USD\s+3$/);
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2}\s+0\.00 USD\s+0$/);
  });

  it('shows the default figures and refuses an unknown metric, a bad date or interval as usage errors', async () => {
    const table = await sandbox({ TILL_FORCE_TTY: '1' }).run(['metrics', '--interval', 'month']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^PERIOD\s+REVENUE\s+NET REVENUE\s+ORDERS\s+MONTHLY RECURRING REVENUE/i,
    );
    expect(table.stdout).toContain('49.00 USD');
    const unknown = await sandbox().run(['metrics', '--metric', 'happiness']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown metric "happiness"; known: .*monthly_recurring_revenue/);
    const date = await sandbox().run(['metrics', '--start', '25/11/2026']);
    expect(date.exitCode).toBe(2);
    expect(date.stderr).toContain('--start must be a date as YYYY-MM-DD');
    const interval = await sandbox().run(['metrics', '--interval', 'fortnight', '--json']);
    expect(interval.exitCode).toBe(2);
    expect(JSON.parse(interval.stderr).error.message).toContain(
      '--interval must be one of hour, day, week, month, year',
    );
  });
});

describe('till dashboard', () => {
  it('refuses to start without a terminal and points to till metrics --json (exit 2)', async () => {
    const result = await sandbox().run(['dashboard']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('dashboard needs a terminal');
    expect(result.stderr).toContain('till metrics --json');
  });
});
