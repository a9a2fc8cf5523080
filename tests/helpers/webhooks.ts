import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/core/kernel/clock.js';
import type { TillConfig } from '../../src/core/config/index.js';
import { recordEvent } from '../../src/core/kernel/outbox.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import type { Merchant } from './v1.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** Webhook tests deliver to a receiver on 127.0.0.1, which only the development setting allows. */
export const WEBHOOK_TEST_CONFIG: Partial<TillConfig> = { webhooks: { allowPrivateUrls: true, timeoutMs: 10_000 } };

/**
 * A daemon whose clock starts at the wall clock's time, so deliveries' timestamps pass verifiers that compare with
 * the real time (standardwebhooks' verify, validateEvent) until a test moves the clock on.
 */
export function startWebhookDaemon(overrides: Partial<TillConfig> = {}): Promise<TestDaemon> {
  return startTestDaemon(
    { ...WEBHOOK_TEST_CONFIG, ...overrides },
    { clock: new ManualClock(Math.floor(Date.now() / 1000) * 1000) },
  );
}

/**
 * One webhook daemon for a test file, started before its tests and stopped after them with every receiver the file
 * started through `receiver`. `daemon` is set once the file's first test runs.
 */
export function webhookSuite(overrides: Partial<TillConfig> = {}) {
  const receivers: Receiver[] = [];
  const suite = {
    daemon: undefined as unknown as TestDaemon,
    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const started = await startReceiver(...args);
      receivers.push(started);
      return started;
    },
    drain: () => suite.daemon.core.webhooks.drain(),
  };
  beforeAll(async () => {
    suite.daemon = await startWebhookDaemon(overrides);
  });
  afterAll(async () => {
    await suite.daemon?.stop();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  return suite;
}

export async function createEndpoint(
  merchant: Merchant,
  url: string,
  events: string[],
  extra: Record<string, unknown> = {},
) {
  const response = await merchant.api.post('/v1/webhooks/endpoints', { url, format: 'raw', events, ...extra });
  if (response.status !== 201) throw new Error(`endpoint create failed: ${response.status} ${response.text}`);
  return response.json as {
    id: string;
    secret: string;
    url: string;
    events: string[];
    enabled: boolean;
    organization_id: string;
  };
}

/** An outbox row as a producing service writes it (for types whose routes do not exist yet, and for bulk). */
export async function emit(
  daemon: TestDaemon,
  organizationId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  await recordEvent(daemon.core.db, { organizationId, type, data, at: daemon.clock.now() });
}

/** Moves the test clock past every possible backoff and delivers what fell due, `rounds` times. */
export async function advanceAndDrain(daemon: TestDaemon, ms: number, rounds = 1): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    daemon.clock.advance(ms);
    await daemon.core.webhooks.drain();
  }
}

/** Several outbox rows in one transaction, so the daemon's own worker sees them all at once. */
export async function emitAll(
  daemon: TestDaemon,
  organizationId: string,
  events: Array<{ type: string; data: Record<string, unknown> }>,
): Promise<void> {
  await daemon.core.db.transaction(async (trx) => {
    for (const event of events)
      await recordEvent(trx, { organizationId, type: event.type, data: event.data, at: daemon.clock.now() });
  });
}

/**
 * Waits for something a real peer does (a receiver getting a request, a stream getting a frame), polling every
 * 10 ms for at most 20 s; the caller asserts on the outcome afterwards.
 */
export async function until(condition: () => boolean | Promise<boolean>, limitMs = 20_000): Promise<void> {
  for (let waited = 0; waited < limitMs && !(await condition()); waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
