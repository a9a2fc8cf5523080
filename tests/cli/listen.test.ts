import { Webhook } from 'standardwebhooks';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { createMerchant } from '../helpers/v1.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { until, webhookSuite } from '../helpers/webhooks.js';
import { useSandboxes } from './till.js';

const suite = webhookSuite();
let daemon: TestDaemon;
let receiver: Receiver;
beforeAll(async () => {
  daemon = suite.daemon;
  receiver = await suite.receiver();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

describe('till listen', () => {
  it('forwards the organization’s events as they happen, signed with the secret it prints, and stops on SIGINT', async () => {
    const merchant = await createMerchant(daemon);
    const cli = sandbox({ TILL_TOKEN: merchant.owner.token });
    const listener = cli.spawn([
      'listen',
      '--forward-to',
      receiver.url,
      '--events',
      'product.created,benefit.created',
      '--org',
      merchant.organization.id,
      '--json',
    ]);
    let stdout = '';
    listener.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await until(() => stdout.includes('"ready":true'));
    const ready = JSON.parse(stdout.split('\n')[0]!);
    expect(ready.secret).toMatch(/^whsec_/);

    // A real change through the API: product.created is forwarded; organization.updated is filtered out.
    const product = await merchant.api.post('/v1/products/', {
      name: 'Listened',
      prices: [{ amount_type: 'fixed', price_amount: 500, price_currency: 'usd' }],
    });
    expect(product.status).toBe(201);
    await merchant.api.call('PATCH', `/v1/organizations/${merchant.organization.id}`, { body: { name: 'Renamed' } });
    await until(() => receiver.received.some((delivery) => delivery.json.type === 'product.created'));
    const delivery = receiver.received.find((entry) => entry.json.type === 'product.created')!;
    expect(delivery.json.data.id).toBe(product.json.id);
    expect(() => new Webhook(ready.secret).verify(delivery.body, delivery.headers)).not.toThrow();
    const event = validateEvent(delivery.body, delivery.headers, ready.secret);
    expect(event.type).toBe('product.created');
    await until(() => stdout.split('\n').filter(Boolean).length >= 2);
    const line = JSON.parse(stdout.split('\n').filter(Boolean)[1]!);
    expect(line).toMatchObject({ type: 'product.created', status: 200, error: null });
    expect(receiver.received.some((entry) => entry.json.type === 'organization.updated')).toBe(false);

    listener.kill('SIGINT');
    const result = await listener;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('Ready! Forwarding events to');
  });

  it('refuses a forward-to that is not an http URL (exit 2) and needs a session (exit 4)', async () => {
    const merchant = await createMerchant(daemon);
    const bad = await sandbox({ TILL_TOKEN: merchant.owner.token }).run([
      'listen',
      '--forward-to',
      'ftp://example.com',
    ]);
    expect(bad.exitCode).toBe(2);
    const anonymous = await sandbox().run(['listen', '--forward-to', receiver.url]);
    expect(anonymous.exitCode).toBe(4);
  });
});
