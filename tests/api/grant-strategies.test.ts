import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenefitStrategy } from '../../src/core/benefit-grants/strategies.js';
import { GRANT_JOBS } from '../../src/core/grant-triggers/kinds.js';
import { HOUR } from '../../src/core/kernel/clock.js';
import { scheduledJobsRepository } from '../../src/core/scheduler/repository.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

let calls = 0;
/** Fails its first three grants (an outside system down), then grants. */
const flaky: BenefitStrategy = {
  grant() {
    calls += 1;
    if (calls <= 3) return Promise.reject(new Error(`upstream unavailable (${calls})`));
    return Promise.resolve({ properties: { attempt: calls } });
  },
  revoke: ({ grant }) => Promise.resolve(grant.properties),
  update: ({ grant }) => Promise.resolve({ properties: grant.properties }),
};
let asked = 0;
/** Like GitHub or Discord before the customer connected an account. */
const needsAccount: BenefitStrategy = {
  grant: () => {
    asked += 1;
    return Promise.resolve({ needsCustomerAction: 'Connect your GitHub account to receive this benefit.' });
  },
  revoke: ({ grant }) => Promise.resolve(grant.properties),
  update: ({ grant }) => Promise.resolve({ properties: grant.properties }),
};

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({}, { grantStrategies: { custom: flaky, license_keys: needsAccount } });
});
afterAll(async () => {
  await daemon.stop();
});

describe('grant strategies', () => {
  it('retries a failing strategy with backoff until it grants, and leaves one that needs the customer failed', async () => {
    const merchant = await createMerchant(daemon);
    const custom = await merchant.api.post('/v1/benefits/', {
      type: 'custom',
      description: 'Flaky perk',
      properties: { note: null },
    });
    const keys = await merchant.api.post('/v1/benefits/', {
      type: 'license_keys',
      description: 'Needs an account',
      properties: {},
    });
    const product = await createProduct(merchant);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [custom.json.id, keys.json.id] });
    const bought = await purchase(daemon, merchant, product.id);
    const grants = async () =>
      (await merchant.api.get('/v1/benefit-grants/', { query: { customer_id: bought.customerId } })).json
        .items as any[];

    await daemon.core.scheduler.drain();
    expect(calls).toBe(1);
    // A failed run is rolled back whole: no grant is written yet, and the job waits for its retry.
    expect(await grants()).toEqual([]);
    const [job] = await scheduledJobsRepository(daemon.core.db).forSubject(bought.order.id);
    expect(job).toMatchObject({ kind: GRANT_JOBS.syncOrder, attempts: 1, lastError: 'upstream unavailable (1)' });

    for (let attempt = 2; attempt <= 4; attempt++) {
      daemon.clock.advance(HOUR);
      await daemon.core.scheduler.drain();
      expect(calls).toBe(attempt);
    }
    const done = await grants();
    expect(done.find((grant) => grant.benefit_id === custom.json.id)).toMatchObject({
      is_granted: true,
      error: null,
      properties: { attempt: 4 },
    });
    const waiting = done.find((grant) => grant.benefit_id === keys.json.id);
    expect(waiting).toMatchObject({
      is_granted: false,
      is_revoked: false,
      error: { message: 'Connect your GitHub account to receive this benefit.', type: 'BenefitActionRequiredError' },
    });
    expect(await scheduledJobsRepository(daemon.core.db).forSubject(bought.order.id)).toEqual([]);

    // Not retried: another sync of the order (the product's benefits saved again) leaves the failed grant as it is.
    expect(asked).toBe(1);
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [custom.json.id, keys.json.id] });
    await daemon.core.scheduler.drain();
    expect(asked).toBe(1);
    expect((await grants()).find((grant) => grant.benefit_id === keys.json.id)).toEqual(waiting);
  });
});
