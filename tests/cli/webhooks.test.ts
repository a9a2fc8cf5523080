import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sign, signingKeys } from '../../src/core/webhooks/signer.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { emit, webhookSuite } from '../helpers/webhooks.js';
import { useSandboxes } from './till.js';

const suite = webhookSuite();
let daemon: TestDaemon;
let receiver: Receiver;
beforeAll(async () => {
  daemon = suite.daemon;
  receiver = await suite.receiver();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

describe('till webhooks', () => {
  it('manages endpoints, reads the delivery log, replays an event, and verifies a captured delivery', async () => {
    const merchant = await createMerchant(daemon);
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });

    const created = await cli.run([
      'webhooks',
      'endpoints',
      'create',
      receiver.url,
      '--event',
      'product.created',
      '--name',
      'shop',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    const listed = await cli.run(['webhooks', 'endpoints', 'list', '--json']);
    expect(listed.json).toHaveLength(1);
    const endpoint = listed.json[0];
    expect(endpoint).toMatchObject({ url: receiver.url, events: ['product.created'], name: 'shop', secret });

    await emit(daemon, merchant.organization.id, 'product.created', { id: 'cli-product' });
    await daemon.core.webhooks.drain();
    const log = await cli.run(['webhooks', 'deliveries', '--endpoint', endpoint.id, '--json']);
    expect(log.exitCode, log.stderr).toBe(0);
    expect(log.json.items).toHaveLength(1);
    const eventId = log.json.items[0].webhook_event.id;
    expect((await cli.run(['webhooks', 'deliveries', '--failed', '--json'])).json.items).toHaveLength(0);

    const replayed = await cli.run(['webhooks', 'replay', eventId]);
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    await daemon.core.webhooks.drain();
    expect(receiver.received.map((delivery) => delivery.id)).toEqual([eventId, eventId]);

    const updated = await cli.run(['webhooks', 'endpoints', 'update', endpoint.id, '--disable', '--json']);
    expect(updated.json.enabled).toBe(false);
    const rotated = await cli.run(['webhooks', 'endpoints', 'rotate-secret', endpoint.id]);
    expect(rotated.stdout.trim()).not.toBe(secret);
    expect((await cli.run(['webhooks', 'endpoints', 'delete', endpoint.id])).exitCode).toBe(0);
    expect((await cli.run(['webhooks', 'endpoints', 'list', '--json'])).json).toEqual([]);
  });

  it('verify: authentic exits 0; a wrong signature, missing headers or an old timestamp exit 1 with the spec’s messages', async () => {
    const cli = sandbox();
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const secretFile = join(cli.root, 'secret');
    writeFileSync(secretFile, `${secret}\n`);
    const body = '{"type":"product.created","timestamp":"2026-11-21T12:00:00.000Z","data":{"id":"p"}}';
    const now = Math.floor(Date.now() / 1000);
    const capture = (headers: Record<string, string>) => JSON.stringify({ headers, body });
    const signed = (key: Buffer, timestamp: number) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${sign(key, 'msg_1', timestamp, body)}`,
    });
    const [polarKey, standardKey] = signingKeys(secret) as [Buffer, Buffer];

    for (const key of [polarKey, standardKey]) {
      const ok = await cli.run(['webhooks', 'verify', '--secret-file', secretFile], {
        input: capture(signed(key, now)),
      });
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(ok.stdout.trim()).toBe('authentic');
    }
    const forged = await cli.run(['webhooks', 'verify', '--secret-file', secretFile], {
      input: capture(signed(Buffer.from('other'), now)),
    });
    expect(forged).toMatchObject({ exitCode: 1, stdout: 'not authentic: No matching signature found' });
    const missing = await cli.run(['webhooks', 'verify', '--secret-file', secretFile], {
      input: capture({ 'webhook-id': 'msg_1' }),
    });
    expect(missing).toMatchObject({ exitCode: 1, stdout: 'not authentic: Missing required headers' });
    const old = await cli.run(['webhooks', 'verify', '--secret-file', secretFile], {
      input: capture(signed(polarKey, now - 301)),
    });
    expect(old).toMatchObject({ exitCode: 1, stdout: 'not authentic: Message timestamp too old' });
    const edge = await cli.run(['webhooks', 'verify', '--secret-file', secretFile, '--at', String(now + 300)], {
      input: capture(signed(polarKey, now)),
    });
    expect(edge.exitCode).toBe(0);
    const future = await cli.run(['webhooks', 'verify', '--secret-file', secretFile, '--at', String(now - 301)], {
      input: capture(signed(polarKey, now)),
    });
    expect(future.stdout).toBe('not authentic: Message timestamp too new');
    const garbage = await cli.run(['webhooks', 'verify', '--secret-file', secretFile], { input: 'not json' });
    expect(garbage.exitCode).toBe(2);
  });
});
