import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { advanceAndDrain, createEndpoint, emit, startWebhookDaemon } from '../helpers/webhooks.js';
import { useSandboxes } from './till.js';

let daemon: TestDaemon;
let receiver: Receiver;
let failing = true;
beforeAll(async () => {
  daemon = await startWebhookDaemon();
  receiver = await startReceiver(() => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
});
afterAll(async () => {
  await daemon.stop();
  await receiver.close();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

describe('till webhooks replay --failed', () => {
  it('sends every event whose last attempt failed again, with the same webhook-id, and skips the ones that succeeded', async () => {
    const merchant = await createMerchant(daemon);
    await createEndpoint(merchant, receiver.url, ['product.created', 'product.updated']);
    const since = new Date(daemon.clock.now().getTime() - 60_000).toISOString();
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'a' });
    await emit(daemon, merchant.organization.id, 'product.updated', { id: 'b' });
    await daemon.core.webhooks.drain();
    // Every retry fails until the daemon gives both events up.
    await advanceAndDrain(daemon, 3_600_000, 25);
    const failedIds = [...new Set(receiver.received.map((delivery) => delivery.id))];
    expect(failedIds).toHaveLength(2);

    failing = false;
    const before = receiver.received.length;
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    const replayed = await cli.run(['webhooks', 'replay', '--failed', '--since', since, '--json']);
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect([...replayed.json.replayed].sort()).toEqual([...failedIds].sort());
    expect(replayed.json.refused).toEqual([]);
    // The daemon's own worker may already have sent them; drain covers the case where it has not.
    await daemon.core.webhooks.drain();
    const resent = receiver.received.slice(before);
    expect(resent.map((delivery) => delivery.id).sort()).toEqual([...failedIds].sort());

    // The replay is the event's next attempt (11 after the 10 the daemon made), and the failed ones stay failed.
    const log = await cli.run(['webhooks', 'deliveries', '--event-type', 'product.created', '--json']);
    expect(log.json.items.map((d: { attempt: number; succeeded: boolean }) => [d.attempt, d.succeeded])).toEqual([
      [11, true],
      ...Array.from({ length: 10 }, (_, index) => [10 - index, false]),
    ]);
    const table = await cli.run(['webhooks', 'deliveries', '--event-type', 'product.created', '--limit', '2']);
    expect(table.stdout.split('\n').map((line) => line.split('\t').slice(3, 5))).toEqual([
      ['11', 'yes'],
      ['10', 'no'],
    ]);

    // Now that both succeeded, there is nothing left to replay.
    const again = await cli.run(['webhooks', 'replay', '--failed', '--since', since, '--json']);
    expect(again.json.replayed).toEqual([]);
  });

  it('needs an event id or --failed, not both, and a readable --since', async () => {
    const merchant = await createMerchant(daemon);
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    expect((await cli.run(['webhooks', 'replay'])).exitCode).toBe(2);
    expect((await cli.run(['webhooks', 'replay', 'abc', '--failed'])).exitCode).toBe(2);
    expect((await cli.run(['webhooks', 'replay', '--failed', '--since', 'yesterday-ish'])).exitCode).toBe(2);
  });
});
