import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

describe('till grants and till license-keys', () => {
  it('lists grants, and lists, shows, updates and validates license keys', async () => {
    const merchant = await createMerchant(daemon);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'license_keys',
      description: 'Pro license',
      properties: { prefix: 'PRO', limit_usage: 5 },
    });
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
    const bought = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    const cli = new Sandbox({ TILL_URL: daemon.url, TILL_TOKEN: merchant.owner.token });
    sandboxes.push(cli);

    const grants = await cli.run(['grants', 'list', '--customer', bought.customerId, '--json']);
    expect(grants.exitCode, grants.stderr).toBe(0);
    expect(grants.json.items).toHaveLength(1);
    expect(grants.json.items[0]).toMatchObject({ benefit_id: benefit.json.id, is_granted: true });
    const table = await cli.run(['grants', 'list', '--benefit', benefit.json.id]);
    expect(table.stdout).toContain('granted');
    expect(table.stdout).toContain(bought.order.id);
    const conflicting = await cli.run(['grants', 'list', '--granted', '--revoked']);
    expect(conflicting.exitCode).toBe(2);

    const list = await cli.run(['license-keys', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    const [key] = list.json.items;
    expect(key.key).toMatch(/^PRO-/);
    const shown = await cli.run(['license-keys', 'show', key.id]);
    expect(shown.stdout).toContain(key.key);
    expect(shown.stdout).toContain('activations: none');

    const validated = await cli.run(['license-keys', 'validate', key.key, '--increment-usage', '2', '--json']);
    expect(validated.exitCode, validated.stderr).toBe(0);
    expect(validated.json).toMatchObject({ usage: 2, validations: 1 });
    const over = await cli.run(['license-keys', 'validate', key.key, '--increment-usage', '4']);
    expect(over.exitCode).toBe(1);
    expect(over.stderr).toContain('License key only has 3 more usages.');

    const updated = await cli.run(['license-keys', 'update', key.id, '--status', 'disabled', '--limit-usage', 'none']);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/status:\s+disabled/);
    const refused = await cli.run(['license-keys', 'validate', key.key]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('License key is no longer active.');
    expect((await cli.run(['license-keys', 'update', key.id, '--status', 'lost'])).exitCode).toBe(2);
  });
});
