import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { plan, subscribe } from '../helpers/subscription-changes.js';
import { createMerchant } from '../helpers/v1.js';
import { useSandboxes } from './till.js';

const daemon = useTestDaemon();
const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
const FORBID_HEAVY = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

describe('till subscriptions change, pause and resume', () => {
  it('changes plan in each mode, pauses and resumes', async () => {
    const merchant = await createMerchant(daemon());
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    const basic = await plan(merchant, 'Basic', 1000);
    const pro = await plan(merchant, 'Pro', 3000);
    const { id } = await subscribe(daemon(), merchant, basic.id);

    const later = await cli.run(['subscriptions', 'change', id, '--product', pro.id, '--proration', 'next_period'], {
      nodeArgs: FORBID_HEAVY,
    });
    expect(later.exitCode, later.stderr).toBe(0);
    expect(later.stderr).toContain(`moves to product ${pro.id}`);
    const cleared = await cli.run(['subscriptions', 'change', id, '--clear-pending', '--json']);
    expect(cleared.json.pending_update).toBeNull();

    daemon().clock.advance(3 * 86_400_000);
    const now = await cli.run(['subscriptions', 'change', id, '--product', pro.id, '--proration', 'invoice']);
    expect(now.exitCode, now.stderr).toBe(0);
    expect(now.stderr).toContain('is now on Pro: 30.00 USD every 1 month');
    const bad = await cli.run(['subscriptions', 'change', id, '--product', basic.id, '--proration', 'reset']);
    expect(bad.exitCode).toBe(2);
    expect((await cli.run(['subscriptions', 'change', id])).exitCode).toBe(2);
    const same = await cli.run(['subscriptions', 'change', id, '--product', pro.id]);
    expect(same.exitCode).toBe(1);
    expect(same.stderr).toContain('already on this product');

    const scheduled = await cli.run(['subscriptions', 'pause', id, '--at-period-end', '--json']);
    expect(scheduled.json).toMatchObject({ status: 'active', pause_at_period_end: true });
    await cli.run(['subscriptions', 'pause', id]); // takes the scheduled pause back
    const resumesAt = '2030-01-01T00:00:00.000Z';
    const paused = await cli.run(['subscriptions', 'pause', id, '--resumes-at', resumesAt]);
    expect(paused.exitCode, paused.stderr).toBe(0);
    expect(paused.stderr).toContain(`is paused; it resumes on ${resumesAt}`);
    expect((await cli.run(['subscriptions', 'pause', id, '--resumes-at', 'soon'])).exitCode).toBe(2);
    const resumed = await cli.run(['subscriptions', 'resume', id, '--json'], { nodeArgs: FORBID_HEAVY });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ status: 'active', resumes_at: null });
  });
});
