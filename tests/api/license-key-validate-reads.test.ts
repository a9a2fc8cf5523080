import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon.stop();
});

// The validation's read: the key joined with its customer (license-keys/repository.ts).
const KEY_READ = /^select .* from [`"]license_keys[`"] inner join [`"]customers[`"]/i;

describe('public license key validations (issue 18)', () => {
  it('read keys together while a read is on its way, and count every validation', async () => {
    const merchant = await createMerchant(daemon);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'license_keys',
      description: 'Busy app',
      properties: {},
    });
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
    const bought = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    const [key] = (await merchant.api.get('/v1/license-keys/')).json.items;
    const organizationId = merchant.organization.id;

    const reads: string[] = [];
    const onQuery = (query: { sql: string }) => {
      if (KEY_READ.test(query.sql)) reads.push(query.sql);
    };
    daemon.core.db.on('query', onQuery);
    try {
      // Twenty at once: the first is sent alone, the nineteen that came while it ran go in one more read.
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          daemon.core.licenseKeys.validate({ key: key.key, organization_id: organizationId }),
        ),
      );
      expect(reads).toHaveLength(2);
      for (const answer of answers) {
        expect(answer).toMatchObject({ id: key.id, key: key.key, status: 'granted', usage: 0, activation: null });
        expect(answer.customer).toMatchObject({ id: bought.customerId });
      }
      // An unknown key in the same moment is Polar's 404, the known one still answers.
      const mixed = await Promise.allSettled([
        daemon.core.licenseKeys.validate({ key: key.key, organization_id: organizationId }),
        daemon.core.licenseKeys.validate({ key: 'NOT-A-KEY', organization_id: organizationId }),
      ]);
      expect(mixed[0]).toMatchObject({ status: 'fulfilled' });
      expect(mixed[1]).toMatchObject({ status: 'rejected', reason: { status: 404 } });
    } finally {
      daemon.core.db.off('query', onQuery);
    }
    const stored = (await merchant.api.get(`/v1/license-keys/${key.id}`)).json;
    expect(stored.validations).toBe(21);
    expect(stored.last_validated_at).not.toBeNull();
    const after = await daemon.core.licenseKeys.validate({ key: key.key, organization_id: organizationId });
    expect(after.validations).toBe(22);
  });
});
