import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../src/core/database/index.js';
import { GRANT_JOBS } from '../../src/core/grant-triggers/kinds.js';
import { cycleGrants, deferCycleGrants, revokeSubscriptionGrants } from '../../src/core/grant-triggers/triggers.js';
import { DAY } from '../../src/core/kernel/clock.js';
import { createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { outboxEvents } from '../helpers/products.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon.stop();
});

describe('what the renewal cycle and dunning call', () => {
  it('cycles a subscription’s grants for its paid order, and revokes later only if it is not active by then', async () => {
    const merchant = await createMerchant(daemon);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'custom',
      description: 'Members area',
      properties: { note: 'Welcome' },
    });
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    await merchant.api.post(`/v1/products/${product.id}/benefits`, { benefits: [benefit.json.id] });
    const bought = await purchase(daemon, merchant, product.id);
    const other = await purchase(daemon, merchant, product.id);
    await daemon.core.scheduler.drain();
    const subscriptionId = bought.subscriptionId!;
    const run = (work: (trx: Parameters<Parameters<typeof transaction>[1]>[0]) => Promise<void>) =>
      transaction(daemon.core.db, work);

    await run((trx) => cycleGrants(trx, subscriptionId, bought.order.id, daemon.clock.now()));
    // Another subscription's order cycles nothing.
    await run((trx) => cycleGrants(trx, subscriptionId, other.order.id, daemon.clock.now()));
    await daemon.core.scheduler.drain();
    const cycled = await outboxEvents(daemon, merchant.organization.id, 'benefit_grant.cycled');
    expect(cycled.map((event) => event.subscription_id)).toEqual([subscriptionId]);

    // A revocation due in a day (a grace period) does nothing if the subscription is still active then.
    await run((trx) =>
      revokeSubscriptionGrants(trx, subscriptionId, new Date(daemon.clock.now().getTime() + DAY), daemon.clock.now()),
    );
    daemon.clock.advance(DAY);
    await daemon.core.scheduler.drain();
    const live = async () =>
      (await merchant.api.get('/v1/benefit-grants/', { query: { customer_id: bought.customerId } })).json.items[0];
    expect(await live()).toMatchObject({ is_granted: true });

    // Past due at the end of the grace period: revoked then, not before.
    await daemon.core.db('subscriptions').where({ id: subscriptionId }).update({ status: 'past_due' });
    await run((trx) =>
      revokeSubscriptionGrants(trx, subscriptionId, new Date(daemon.clock.now().getTime() + DAY), daemon.clock.now()),
    );
    await daemon.core.scheduler.drain();
    expect(await live()).toMatchObject({ is_granted: true });
    daemon.clock.advance(DAY);
    await daemon.core.scheduler.drain();
    expect(await live()).toMatchObject({ is_granted: false, is_revoked: true });
  });

  it('asks for a grant cycle only for the subscriptions that hold grants', async () => {
    const merchant = await createMerchant(daemon);
    const benefit = await merchant.api.post('/v1/benefits/', {
      type: 'custom',
      description: 'Support',
      properties: { note: 'Write to us' },
    });
    const withBenefit = await createProduct(merchant, { recurring_interval: 'month' });
    await merchant.api.post(`/v1/products/${withBenefit.id}/benefits`, { benefits: [benefit.json.id] });
    const plain = await createProduct(merchant, { recurring_interval: 'month' });
    const granted = await purchase(daemon, merchant, withBenefit.id);
    const bare = await purchase(daemon, merchant, plain.id);
    await daemon.core.scheduler.drain();

    const asked = await transaction(daemon.core.db, async (trx) => {
      const writes = await deferCycleGrants(
        trx,
        [granted, bare].map((bought) => ({ subscriptionId: bought.subscriptionId!, orderId: bought.order.id })),
        daemon.clock.now(),
      );
      for (const write of writes) await write;
      return (await trx('scheduled_jobs').where({ kind: GRANT_JOBS.cycle }).select('subject_id')).map((row) =>
        String(row.subject_id),
      );
    });
    expect(asked).toHaveLength(1);
    await daemon.core.scheduler.drain();
    const cycled = await outboxEvents(daemon, merchant.organization.id, 'benefit_grant.cycled');
    expect(cycled.map((event) => event.subscription_id)).toEqual([granted.subscriptionId]);
  });
});
