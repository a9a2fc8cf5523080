import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/kernel/clock.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({ rateLimit: true });
});
afterAll(async () => {
  await daemon.stop();
});

describe('the public license key calls', () => {
  it('allow 3 calls per second per key, as Polar documents, then answer 429 with Retry-After', async () => {
    const merchant = await createMerchant(daemon);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'license_keys',
      description: 'Limited',
      properties: {},
    });
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
    await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    const [key] = (await merchant.api.get('/v1/license-keys/')).json.items;
    const client = new TestClient(daemon.url);
    const validate = (value: string) =>
      client.post('/v1/customer-portal/license-keys/validate', {
        key: value,
        organization_id: merchant.organization.id,
      });

    for (let call = 0; call < 3; call++) expect((await validate(key.key)).status).toBe(200);
    const limited = await validate(key.key);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    // Another key has its own allowance; the merchant's authenticated call has none of this limit.
    expect((await validate('NOT-A-KEY')).status).toBe(404);
    const merchantCall = await merchant.api.post('/v1/license-keys/validate', {
      key: key.key,
      organization_id: merchant.organization.id,
    });
    expect(merchantCall.status).toBe(200);

    daemon.clock.advance(SECOND);
    expect((await validate(key.key)).status).toBe(200);
    expect((await merchant.api.get(`/v1/license-keys/${key.id}`)).json.validations).toBe(5);
  });
});
