import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cleanup, render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/cli/target.js';
import { createHttpData, type Scope, type WebhooksData } from '../../src/cli/tui/webhooks-dashboard/data.js';
import { WebhooksDashboard } from '../../src/cli/tui/webhooks-dashboard/index.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { advanceAndDrain, createEndpoint, emit, startWebhookDaemon, until } from '../helpers/webhooks.js';
import { useSandboxes } from './till.js';

const DOWN = '\u001B[B';
const UP = '\u001B[A';

let daemon: TestDaemon;
let receiver: Receiver;
/** The receiver answers 500 while this is set, 200 otherwise. */
let failing = false;
beforeAll(async () => {
  daemon = await startWebhookDaemon();
  receiver = await startReceiver(() => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
});
afterAll(async () => {
  await daemon.stop();
  await receiver.close();
});
afterEach(() => {
  cleanup();
  failing = false;
});

/**
 * The HTTP data layer the command uses, bound to the test daemon, with every call tracked: waiting for a frame
 * first waits for the daemon's answers, so no test guesses how long a request takes.
 */
function tracked(data: WebhooksData) {
  const pending = new Set<Promise<unknown>>();
  const track =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    (...args: A) => {
      const promise = fn(...args);
      pending.add(promise);
      void promise.then(
        () => pending.delete(promise),
        () => pending.delete(promise),
      );
      return promise;
    };
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { data: { load: track(data.load), redeliver: track(data.redeliver) } satisfies WebhooksData, idle };
}

/**
 * A merchant with two endpoints on the receiver: one enabled with a successful attempt (200) and then a failed one
 * (500, its retry scheduled), and one disabled that never got anything.
 */
async function merchantWithDeliveries() {
  const merchant = await createMerchant(daemon, { name: 'Hooks Co' });
  const live = await createEndpoint(merchant, receiver.url, ['product.created']);
  const off = await createEndpoint(merchant, receiver.url.replace('/hook', '/off'), ['order.paid']);
  const disabled = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${off.id}`, { body: { enabled: false } });
  expect(disabled.status, disabled.text).toBe(200);
  const before = receiver.received.length;
  await emit(daemon, merchant.organization.id, 'product.created', { id: 'first' });
  await daemon.core.webhooks.drain();
  // A step of the test clock orders the two attempts (far below any backoff, so nothing else falls due).
  daemon.clock.advance(100);
  failing = true;
  await emit(daemon, merchant.organization.id, 'product.created', { id: 'second' });
  await daemon.core.webhooks.drain();
  failing = false;
  const sent = receiver.received.slice(before);
  expect(sent.map((delivery) => delivery.json.data.id)).toEqual(['first', 'second']);
  return { merchant, live, off, failedEventId: sent[1]!.id };
}

/** The screen as `till webhooks dashboard` builds it: a target from TILL_URL and TILL_TOKEN, and the HTTP data layer. */
function dashboard(merchant: Merchant, scope: Scope) {
  const target = resolveTarget(
    {},
    { TILL_URL: daemon.url, TILL_TOKEN: merchant.owner.token, XDG_CONFIG_HOME: '/nonexistent-till-config' },
  );
  const { data, idle } = tracked(createHttpData(target, scope));
  // A short poll keeps the test quick; the command polls every 2 s through the same code.
  const screen = render(<WebhooksDashboard data={data} refreshMs={50} />);
  const frame = () => screen.lastFrame() ?? '';
  /** Waits (for the daemon, then for Ink) until the frame passes `test`, and fails showing the last frame if it never does. */
  const untilFrame = async (test: (frame: string) => boolean, what: string) => {
    await until(async () => {
      await idle();
      return test(frame());
    });
    expect(test(frame()), `expected the frame to show ${what}; last frame:\n${frame()}`).toBe(true);
  };
  const selected = () =>
    frame()
      .split('\n')
      .find((line) => line.includes('›')) ?? '';
  const press = async (keys: string, expected: (frame: string) => boolean, what: string) => {
    screen.stdin.write(keys);
    await untilFrame(expected, what);
  };
  return { frame, until: untilFrame, selected, press };
}

describe('till webhooks dashboard (Ink screen against a real daemon)', () => {
  it('shows endpoint health and the deliveries with their status codes, and retries as they land', async () => {
    const { merchant, live } = await merchantWithDeliveries();
    const ui = dashboard(merchant, { org: merchant.organization.slug });
    await ui.until((f) => f.includes('✗ 500') && f.includes('✓ 200'), 'both deliveries');
    const f = ui.frame();
    expect(f).toContain('Hooks Co');
    expect(f).toContain('Endpoints (2)');
    expect(f).toMatch(new RegExp(`enabled\\s+${live.url.replace(/[.?]/g, '\\$&')}\\s+50% ok \\(1/2\\)\\s+last 500 at`));
    expect(f).toMatch(/disabled\s+\S+\/off\s+no recent deliveries/);
    expect(f).toContain('Deliveries, newest first (2)');
    // Newest first, and the failed attempt's event waits for its retry.
    const rows = f.split('\n').filter((line) => line.includes('product.created'));
    expect(rows[0]).toMatch(/✗ 500\s+\d+ ms\s+attempt 1\s+product\.created\s+retry at \d\d:\d\d:\d\d/);
    expect(rows[1]).toMatch(/✓ 200\s+\d+ ms\s+attempt 1\s+product\.created\s+delivered/);
    expect(ui.selected()).toContain('✗ 500');

    // Live: the retry, made by the daemon while the screen is open, shows up without a key press on top, and the
    // selection stays on the attempt it was on.
    await advanceAndDrain(daemon, 3_600_000);
    await ui.until((f) => f.includes('Deliveries, newest first (3)'), 'the retry');
    const after = ui
      .frame()
      .split('\n')
      .filter((line) => line.includes('product.created'));
    expect(after[0]).toMatch(/✓ 200\s+\d+ ms\s+attempt 2\s+product\.created\s+delivered/);
    // The failed attempt is labelled with where its event ended up, as the event's, never as "succeeded" itself.
    expect(after[1]).toMatch(/✗ 500\s+\d+ ms\s+attempt 1\s+product\.created\s+event succeeded at attempt 2/);
    expect(ui.frame()).toMatch(/67% ok \(2\/3\)\s+last 200 at/);
    expect(ui.selected()).toMatch(/✗ 500\s+\d+ ms\s+attempt 1/);
  });

  it('replays the selected failed delivery’s event after r and y (same webhook-id), and n cancels', async () => {
    const { merchant, failedEventId } = await merchantWithDeliveries();
    const ui = dashboard(merchant, {});
    await ui.until((f) => f.includes('✓ 200'), 'the deliveries');
    await ui.press(DOWN, () => ui.selected().includes('✓ 200'), 'the successful delivery selected');
    await ui.press(UP, () => ui.selected().includes('✗ 500'), 'the failed delivery selected');

    const before = receiver.received.length;
    await ui.press(
      'r',
      (f) => f.includes(`Replay product.created ${failedEventId}`) && f.includes('[y/N]'),
      'the confirmation',
    );
    await ui.press('n', (f) => f.includes('Nothing replayed'), 'the refusal');
    await daemon.core.webhooks.drain();
    expect(receiver.received.length).toBe(before);

    // A step of the test clock makes the replayed attempt the newest row (the log orders by time).
    daemon.clock.advance(100);
    await ui.press('r', (f) => f.includes('[y/N]'), 'the confirmation');
    await ui.press('y', (f) => f.includes(`✓ Replay of product.created ${failedEventId} queued`), 'the replay queued');
    // The daemon's own worker may already have sent it; drain covers the case where it has not.
    await daemon.core.webhooks.drain();
    expect(receiver.received.slice(before).map((delivery) => delivery.id)).toEqual([failedEventId]);
    await ui.until((f) => f.includes('Deliveries, newest first (3)'), 'the replayed attempt');
    const rows = ui
      .frame()
      .split('\n')
      .filter((line) => line.includes('product.created'));
    // A replay is the event's next attempt; the failed attempt before it shows where its event ended up.
    expect(rows[0]).toMatch(/✓ 200\s+\d+ ms\s+attempt 2\s+product\.created\s+delivered/);
    expect(ui.selected()).toMatch(/✗ 500\s+\d+ ms\s+attempt 1\s+product\.created\s+event succeeded at attempt 2/);
    expect(ui.frame()).toMatch(/67% ok \(2\/3\)\s+last 200 at/);
  });

  it('narrows to one endpoint with --endpoint and shows the daemon refusing a replay in the status line', async () => {
    const { merchant, live } = await merchantWithDeliveries();
    const ui = dashboard(merchant, { endpoint: live.id });
    await ui.until((f) => f.includes('✗ 500'), 'the deliveries');
    expect(ui.frame()).toContain('Endpoints (1)');
    expect(ui.frame()).not.toContain('/off');
    expect(ui.frame()).toContain('every organization you can see');

    // Disabled from elsewhere while the screen is open: the daemon refuses, and the refresh shows why.
    const disabled = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${live.id}`, {
      body: { enabled: false },
    });
    expect(disabled.status, disabled.text).toBe(200);
    await ui.press(
      'ry',
      (f) => f.includes('✗ The webhook endpoint is disabled; enable it before redelivering.'),
      'the refusal',
    );
    expect(ui.frame()).toMatch(/disabled\s+http:\/\/127\.0\.0\.1:\d+\/hook/);
  });

  it('refuses an endpoint that is not among the caller’s, before any screen', async () => {
    const merchant = await createMerchant(daemon);
    const target = resolveTarget(
      {},
      { TILL_URL: daemon.url, TILL_TOKEN: merchant.owner.token, XDG_CONFIG_HOME: '/nonexistent-till-config' },
    );
    const unknown = randomUUID();
    await expect(createHttpData(target, { endpoint: unknown }).load()).rejects.toThrow(
      `no webhook endpoint "${unknown}" among yours`,
    );
    await expect(createHttpData(target, { org: 'no-such-org' }).load()).rejects.toThrow(
      'no organization "no-such-org"',
    );
  });
});

describe('till webhooks dashboard without a terminal', () => {
  const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));
  const nodeArgs = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

  it('exits 2 (usage) pointing at the --json commands, before loading Ink or asking the daemon anything', async () => {
    // Not signed in either: the terminal check comes first, so a script learns what to use instead.
    const result = await sandbox().run(['webhooks', 'dashboard'], { nodeArgs });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('needs a terminal');
    for (const command of ['till webhooks deliveries --json', 'till webhooks endpoints list --json'])
      expect(result.stderr).toContain(command);
    // Piped input alone is enough to refuse, too.
    const piped = await sandbox().run(['webhooks', 'dashboard', '--endpoint', randomUUID()], { nodeArgs, input: 'q' });
    expect(piped.exitCode, piped.stderr).toBe(2);
    expect(piped.stderr).toContain('needs a terminal');
  });

  it('documents itself in --help without loading Ink', async () => {
    const help = await sandbox().run(['webhooks', 'dashboard', '--help'], { nodeArgs });
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toContain('--org <id|slug>');
    expect(help.stdout).toContain('--endpoint <id>');
  });
});
