import { beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_CHARS } from '../../src/core/webhooks/delivery.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { createEndpoint, emit, webhookSuite } from '../helpers/webhooks.js';

const suite = webhookSuite();
const { receiver, drain } = suite;
let daemon: TestDaemon;
beforeAll(() => {
  daemon = suite.daemon;
});

// An emoji is two UTF-16 units; placed here, the limit falls between them.
const CUT_PAIR = 'x'.repeat(RESPONSE_CHARS - 1) + '\u{1F600}' + 'tail';

describe("a receiver's answer PostgreSQL could not store as it is", () => {
  it('records deliveries answered with NUL or with a character cut at the limit, and keeps delivering', async () => {
    const merchant = await createMerchant(daemon);
    const answers: Record<string, string> = { nul: 'a\u0000b', cut: CUT_PAIR, lone: 'c\ud800d', plain: 'ok' };
    const target = await receiver((delivery) => ({
      status: 200,
      body: answers[String(delivery.json.data.id)] ?? 'ok',
    }));
    const endpoint = await createEndpoint(merchant, target.url, ['product.created']);

    for (const id of ['nul', 'cut', 'lone', 'plain']) {
      await emit(daemon, merchant.organization.id, 'product.created', { id });
      await drain();
    }
    expect(target.received.map((delivery) => delivery.json.data.id)).toEqual(['nul', 'cut', 'lone', 'plain']);

    const log = await merchant.api.get('/v1/webhooks/deliveries', { query: { endpoint_id: endpoint.id } });
    expect(log.status).toBe(200);
    const byId = new Map<string, { succeeded: boolean; response: string }>(
      log.json.items.map((item: { webhook_event: { payload: string }; succeeded: boolean; response: string }) => [
        JSON.parse(item.webhook_event.payload).data.id,
        item,
      ]),
    );
    expect([...byId.keys()].sort()).toEqual(['cut', 'lone', 'nul', 'plain']);
    expect(byId.get('nul')).toMatchObject({ succeeded: true, response: 'a\uFFFDb' });
    // Cut before the pair rather than through it: no half character is stored.
    expect(byId.get('cut')).toMatchObject({ succeeded: true, response: 'x'.repeat(RESPONSE_CHARS - 1) });
    // The receiver's UTF-8 cannot carry a lone surrogate; Node's encoder sent U+FFFD.
    expect(byId.get('lone')).toMatchObject({ succeeded: true, response: 'c\uFFFDd' });
    const events = await daemon.core.db('webhook_events').where({ endpoint_id: endpoint.id }).select('status');
    expect(events.map((event) => event.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  });
});
