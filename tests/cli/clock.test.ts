import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../src/core/kernel/crypto.js';
import { startTestDaemon, TEST_SECRET, type TestDaemon } from '../helpers/daemon.js';
import { useSandboxes } from './till.js';

let simulated: TestDaemon;
let system: TestDaemon;
const sandbox = useSandboxes(() => ({ TILL_URL: simulated.url, TILL_ADMIN_TOKEN: adminToken(TEST_SECRET) }));

beforeAll(async () => {
  [simulated, system] = await Promise.all([startTestDaemon({ clock: 'simulated' }), startTestDaemon()]);
});
afterAll(async () => {
  await Promise.all([simulated?.stop(), system?.stop()]);
});

describe('till clock', () => {
  it('shows, advances by a duration and sets the simulated time', async () => {
    const cli = sandbox();
    const shown = await cli.run(['clock', 'show', '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.json.simulated).toBe(true);
    const start = Date.parse(shown.json.now);

    const advanced = await cli.run(['clock', 'advance', '31d', '--json']);
    expect(advanced.exitCode, advanced.stderr).toBe(0);
    expect(advanced.json).toEqual({ now: new Date(start + 31 * 86_400_000).toISOString() });
    const twoWeeks = await cli.run(['clock', 'advance', '2w']);
    expect(twoWeeks.stdout.trim()).toBe(new Date(start + 45 * 86_400_000).toISOString());

    const set = await cli.run(['clock', 'set', '2099-01-01T00:00:00Z']);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout.trim()).toBe('2099-01-01T00:00:00.000Z');
    expect((await cli.run(['clock', 'show'])).stdout.trim()).toBe('2099-01-01T00:00:00.000Z');
  });

  it('refuses bad durations and times, going back, and a daemon without the simulated clock', async () => {
    const cli = sandbox();
    for (const args of [
      ['advance', '31x'],
      ['advance', '-1d'],
      ['set', 'tomorrow'],
    ]) {
      const result = await cli.run(['clock', ...args]);
      expect(result.exitCode, args.join(' ')).toBe(2);
    }
    await cli.run(['clock', 'set', '2099-06-01T00:00:00Z']);
    const back = await cli.run(['clock', 'set', '2099-01-01T00:00:00Z']);
    expect(back.exitCode).toBe(1);
    expect(back.stderr).toMatch(/only moves forward/);

    const real = sandbox({ TILL_URL: system.url });
    const missing = await real.run(['clock', 'show']);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toMatch(/TILL_CLOCK=simulated/);
  });
});
