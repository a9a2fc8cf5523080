import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import { createEndpoint, emit, startWebhookDaemon, until } from '../helpers/webhooks.js';

describe('webhook endpoints', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startWebhookDaemon();
  });
  afterAll(async () => {
    await daemon.stop();
  });

  it('creates, lists, gets, updates and deletes; keeps the secret sealed at rest', async () => {
    const merchant = await createMerchant(daemon);
    const created = await createEndpoint(
      merchant,
      'http://127.0.0.1:9/hook',
      ['order.paid', 'order.paid', 'subscription.created'],
      { name: 'Orders' },
    );
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      name: 'Orders',
      format: 'raw',
      enabled: true,
      events: ['order.paid', 'subscription.created'],
      organization_id: merchant.organization.id,
      modified_at: null,
    });
    const row = await daemon.core.db('webhook_endpoints').where({ id: created.id }).first();
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(created.secret.slice(6));

    const list = await merchant.api.get('/v1/webhooks/endpoints');
    expect(list.json.items.map((item: { id: string }) => item.id)).toEqual([created.id]);
    const updated = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${created.id}`, {
      body: { events: ['product.created'], enabled: false, name: null },
    });
    expect(updated.json).toMatchObject({
      events: ['product.created'],
      enabled: false,
      name: null,
      secret: created.secret,
    });
    expect(updated.json.modified_at).not.toBeNull();

    const other = await createMerchant(daemon);
    expect((await other.api.get(`/v1/webhooks/endpoints/${created.id}`)).status).toBe(404);
    expect((await other.api.get('/v1/webhooks/endpoints')).json.items).toEqual([]);

    expect((await merchant.api.call('DELETE', `/v1/webhooks/endpoints/${created.id}`)).status).toBe(204);
    expect((await merchant.api.get(`/v1/webhooks/endpoints/${created.id}`)).status).toBe(404);
  });

  it('validates input: unknown event types, formats other than raw, bad URLs', async () => {
    const merchant = await createMerchant(daemon);
    const unknown = await merchant.api.post('/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1/x',
      format: 'raw',
      events: ['order.exploded'],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'events', 0]);
    const slack = await merchant.api.post('/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1/x',
      format: 'slack',
      events: [],
    });
    expect(slack.status).toBe(422);
    const ftp = await merchant.api.post('/v1/webhooks/endpoints', {
      url: 'ftp://example.com/x',
      format: 'raw',
      events: [],
    });
    expect(ftp.status).toBe(422);
    expect(ftp.json.detail[0].loc).toEqual(['body', 'url']);
  });

  it('streams the organization’s events as server-sent events, and resumes after Last-Event-ID', async () => {
    const merchant = await createMerchant(daemon);
    const other = await createMerchant(daemon);
    const controller = new AbortController();
    const response = await request(`${daemon.url}/v1/webhooks/events/stream`, {
      headers: { authorization: `Bearer ${merchant.token}` },
      signal: controller.signal,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    let text = '';
    const reading = (async () => {
      try {
        for await (const chunk of response.body) text += chunk.toString();
      } catch {
        // Aborted at the end of the test.
      }
    })();
    await emit(daemon, merchant.organization.id, 'product.created', { id: 'streamed-1' });
    await emit(daemon, other.organization.id, 'product.created', { id: 'not-mine' });
    await emit(daemon, merchant.organization.id, 'product.updated', { id: 'streamed-2' });
    await until(() => (text.match(/^data: /gm) ?? []).length >= 2);
    controller.abort();
    await reading;
    const frames = text.split('\n\n').filter((frame) => frame.includes('data: '));
    expect(frames).toHaveLength(2);
    const parsed = frames.map((frame) => ({
      id: /^id: (\d+)$/m.exec(frame)![1]!,
      event: /^event: (.+)$/m.exec(frame)![1],
      data: JSON.parse(/^data: (.+)$/m.exec(frame)![1]!),
    }));
    expect(parsed.map((frame) => [frame.event, frame.data.data.id])).toEqual([
      ['product.created', 'streamed-1'],
      ['product.updated', 'streamed-2'],
    ]);
    expect(parsed[0]!.data).toMatchObject({ type: 'product.created', timestamp: daemon.clock.now().toISOString() });

    // Resuming after the first frame replays the second.
    const resumed = new AbortController();
    const again = await request(`${daemon.url}/v1/webhooks/events/stream`, {
      headers: { authorization: `Bearer ${merchant.token}`, 'last-event-id': parsed[0]!.id },
      signal: resumed.signal,
    });
    let replay = '';
    const replaying = (async () => {
      try {
        for await (const chunk of again.body) replay += chunk.toString();
      } catch {
        // Aborted below.
      }
    })();
    await until(() => replay.includes('streamed-2'));
    resumed.abort();
    await replaying;
    expect(replay).not.toContain('streamed-1');
    expect((await request(`${daemon.url}/v1/webhooks/events/stream`)).statusCode).toBe(401);
  });
});

describe('endpoint URLs pointing into the private network', () => {
  const daemon = useTestDaemon();

  it('are refused unless TILL_WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
    const merchant = await createMerchant(daemon());
    for (const url of [
      'http://127.0.0.1/x',
      'http://localhost:8080/x',
      'http://10.1.2.3/x',
      'http://172.16.0.1/x',
      'http://192.168.1.1/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://[fd00::1]/x',
      'http://[fe80::1]/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const response = await merchant.api.post('/v1/webhooks/endpoints', { url, format: 'raw', events: [] });
      expect(response.status, url).toBe(422);
      expect(response.json.detail[0]).toMatchObject({
        loc: ['body', 'url'],
        msg: 'URL must not point at a loopback, private or link-local address (TILL_WEBHOOK_ALLOW_PRIVATE_URLS=true on the daemon allows it, for development)',
      });
    }
    const publicAddress = await merchant.api.post('/v1/webhooks/endpoints', {
      url: 'https://93.184.215.14/hook',
      format: 'raw',
      events: [],
    });
    expect(publicAddress.status).toBe(201);
    const moved = await merchant.api.call('PATCH', `/v1/webhooks/endpoints/${publicAddress.json.id}`, {
      body: { url: 'http://10.0.0.1/' },
    });
    expect(moved.status).toBe(422);
  });
});
