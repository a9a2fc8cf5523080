import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import { shellQuote, tmuxServer } from '../helpers/tmux.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { paidOrder } from '../helpers/purchases.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { Sandbox, TILL_BIN } from './till.js';

// `till dashboard` once in a real terminal: tmux runs the built CLI in a 120×40 pane against a test daemon with a
// few orders, and the pane is read as a person would see it. Its own tmux server (-L), so nothing else is touched.

const { tmux, kill: killTmux } = tmuxServer('till-test');
const quote = shellQuote;

let daemon: TestDaemon;
let merchant: Merchant;
const cli = new Sandbox();
beforeAll(async () => {
  daemon = await startTestDaemon(undefined, { clock: new ManualClock(new Date()) });
  merchant = await createMerchant(daemon, { name: 'Tmux Co' });
  await paidOrder(daemon, merchant, 1900);
  const plan = await paidOrder(daemon, merchant, 4900, 'month');
  await paidOrder(daemon, merchant, 2500);
  // Until the dunning engine makes subscriptions past due, one is set so, for the past-due list to show.
  await daemon.core.db('subscriptions').where({ id: plan.subscriptionId }).update({ status: 'past_due' });
});
afterAll(async () => {
  killTmux();
  cli.cleanup();
  await daemon?.stop();
});

async function pane(test: (screen: string) => boolean): Promise<string> {
  let screen = '';
  for (let waited = 0; waited < 20_000; waited += 100) {
    screen = tmux('capture-pane', '-p', '-t', 'dash');
    if (test(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return screen;
}

describe('till dashboard in a terminal (tmux)', () => {
  it('draws the charts, the latest orders and the past-due list, opens a customer, and quits on q', async () => {
    const env = cli.environment({ TILL_URL: daemon.url, TILL_TOKEN: merchant.owner.token, TERM: 'xterm-256color' });
    const assignments = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`);
    const command = `exec env -i ${assignments.join(' ')} ${quote(process.execPath)} ${quote(TILL_BIN)} dashboard`;
    tmux('new-session', '-d', '-s', 'dash', '-x', '120', '-y', '40', command);
    const screen = await pane((text) => text.includes('Latest orders (3)'));
    if (process.env.SHOW_PANE) process.stdout.write(screen);
    expect(screen, screen).toContain('Revenue  Tmux Co  30d by day');
    expect(screen).toContain('MRR 49.00 USD');
    // asciichart's axis beside the y labels, in currency units, for both charts.
    expect(screen).toMatch(/93\.00 USD [┤┼]/);
    expect(screen).toContain('MRR (USD)');
    expect(screen).toContain('Revenue per day (USD)');
    expect(screen).toMatch(/25\.00 USD\s+paid\s+buyer-/);
    expect(screen).toMatch(/49\.00 USD\s+paid\s+buyer-/);
    expect(screen).toMatch(/19\.00 USD\s+paid\s+buyer-/);
    expect(screen).toMatch(/Past due \(1\)\n\s+› buyer-\S+\s+Pro plan\s+49\.00 USD\/month/);
    // 120 columns: the two charts side by side.
    expect(screen.split('\n').find((line) => line.includes('MRR (USD)'))).toContain('Revenue per day (USD)');

    // o on the past-due subscription shows its customer, with a portal link from the daemon.
    tmux('send-keys', '-t', 'dash', 'o');
    const opened = await pane((text) => text.includes('Portal: '));
    expect(opened, opened).toContain(`Portal: ${daemon.url}/`);
    expect(opened).toMatch(/Customer buyer-\S+@example\.com/);
    expect(opened).toMatch(/\d+ active subscription\(s\) · \d+ benefit\(s\) granted/);

    tmux('send-keys', '-t', 'dash', 'q');
    let running = true;
    for (let waited = 0; waited < 10_000 && running; waited += 100) {
      try {
        tmux('has-session', '-t', 'dash');
        await new Promise((resolve) => setTimeout(resolve, 100));
      } catch {
        running = false;
      }
    }
    expect(running).toBe(false);
  });
});
