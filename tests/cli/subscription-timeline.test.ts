import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createPlan, subscribe } from '../helpers/renewals.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

describe('till subscriptions show and extend-trial', () => {
  it('moves a trial, ends it now, and shows the timeline with both orders', async () => {
    const merchant = await createMerchant(daemon());
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    const plan = await createPlan(merchant, { interval: 'month', amount: 1200, trial_interval: 'week' });
    const { subscriptionId } = await subscribe(daemon(), merchant, plan.id);

    const until = new Date(daemon().clock.now().getTime() + 10 * 86_400_000).toISOString();
    const moved = await cli.run(['subscriptions', 'extend-trial', subscriptionId, '--until', until]);
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(`now ends at ${until}`);
    expect((await cli.run(['subscriptions', 'extend-trial', subscriptionId, '--until', 'soon'])).exitCode).toBe(1);

    const ended = await cli.run(['subscriptions', 'extend-trial', subscriptionId, '--until', 'now', '--json']);
    expect(ended.exitCode, ended.stderr).toBe(0);
    expect(ended.json).toMatchObject({ status: 'active' });
    await daemon().core.scheduler.drain();

    const shown = await cli.run(['subscriptions', 'show', subscriptionId], { nodeArgs: FORBID_HEAVY });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/trial started/);
    expect(shown.stdout).toMatch(/order subscription_create\s+0\.00 USD, paid/);
    expect(shown.stdout).toMatch(/order subscription_cycle\s+12\.00 USD, paid/);
    expect(shown.stdout).toMatch(/current period/);
  });
});
