import { describe, expect, it } from 'vitest';
import { transaction } from '../../src/core/database/index.js';
import { DAY, MINUTE } from '../../src/core/kernel/clock.js';
import { scheduledJobsRepository } from '../../src/core/scheduler/repository.js';
import { schedule } from '../../src/core/scheduler/schedule.js';
import { SCHEDULER } from '../../src/core/scheduler/service.js';
import { createCheckout, createProduct } from '../helpers/catalog.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { purchase } from '../helpers/purchases.js';
import { createMerchant } from '../helpers/v1.js';
import { createEndpoint, webhookSuite } from '../helpers/webhooks.js';

const suite = webhookSuite();

async function jobsOf(daemon: TestDaemon, subjectId: string) {
  return scheduledJobsRepository(daemon.core.db).forSubject(subjectId);
}

async function scheduleNow(daemon: TestDaemon, kind: string, subjectId: string, dueAt = daemon.clock.now()) {
  await transaction(daemon.core.db, (trx) => schedule(trx, { kind, subjectId, dueAt }, daemon.clock.now()));
}

describe('scheduled jobs', () => {
  it('expire an open checkout when its time runs out and send checkout.expired', async () => {
    const daemon = suite.daemon;
    const merchant = await createMerchant(daemon);
    const receiver = await suite.receiver();
    await createEndpoint(merchant, receiver.url, ['checkout.updated', 'checkout.expired']);
    const product = await createProduct(merchant);
    const checkout = await createCheckout(merchant, [product.id]);
    const [job] = await jobsOf(daemon, checkout.id);
    expect(job).toMatchObject({ kind: 'checkout.expire', attempts: 0 });

    daemon.clock.advance(DAY - MINUTE);
    await daemon.core.scheduler.drain();
    expect(await jobsOf(daemon, checkout.id)).toHaveLength(1);

    daemon.clock.advance(MINUTE);
    await daemon.core.scheduler.drain();
    await suite.drain();
    expect(await jobsOf(daemon, checkout.id)).toEqual([]);
    expect(receiver.received.map((delivery) => delivery.json.type)).toEqual(['checkout.updated', 'checkout.expired']);
    const expired = receiver.of('checkout.expired')[0]!.json.data;
    expect(expired).toMatchObject({ id: checkout.id, status: 'expired' });
    expect((await merchant.api.get(`/v1/checkouts/${checkout.id}`)).json.status).toBe('expired');
  });

  it('leave a paid checkout alone, and expire a checkout read after its time only once', async () => {
    const daemon = suite.daemon;
    const merchant = await createMerchant(daemon);
    const receiver = await suite.receiver();
    await createEndpoint(merchant, receiver.url, ['checkout.expired']);
    const product = await createProduct(merchant);
    const paid = await purchase(daemon, merchant, product.id);
    const unread = await createCheckout(merchant, [product.id]);
    daemon.clock.advance(DAY);
    // Read before the job runs: expired then, and the job finds nothing left to do.
    expect((await merchant.api.get(`/v1/checkouts/${unread.id}`)).json.status).toBe('expired');
    await daemon.core.scheduler.drain();
    await suite.drain();
    expect(receiver.of('checkout.expired').map((delivery) => delivery.json.data.id)).toEqual([unread.id]);
    expect((await merchant.api.get(`/v1/checkouts/${paid.checkout.id}`)).json.status).toBe('succeeded');
    expect(await jobsOf(daemon, paid.checkout.id)).toEqual([]);
  });

  it('carry out a cancel at the period end: canceled, ended, with subscription.updated and subscription.revoked', async () => {
    const daemon = suite.daemon;
    const merchant = await createMerchant(daemon);
    const receiver = await suite.receiver();
    await createEndpoint(merchant, receiver.url, [
      'subscription.updated',
      'subscription.canceled',
      'subscription.uncanceled',
      'subscription.revoked',
    ]);
    const product = await createProduct(merchant, { recurring_interval: 'month' });
    const { subscriptionId } = await purchase(daemon, merchant, product.id);
    const kept = await purchase(daemon, merchant, product.id);
    const patch = (id: string, body: unknown) => merchant.api.call('PATCH', `/v1/subscriptions/${id}`, { body });

    // Set to cancel, taken back, set again: each keeps its one cycle job at the period end, which carries it out.
    expect((await patch(subscriptionId!, { cancel_at_period_end: true })).status).toBe(200);
    expect((await patch(kept.subscriptionId!, { cancel_at_period_end: true })).status).toBe(200);
    expect((await patch(kept.subscriptionId!, { cancel_at_period_end: false })).status).toBe(200);
    const current = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json;
    for (const id of [subscriptionId!, kept.subscriptionId!]) {
      const jobs = await jobsOf(daemon, id);
      expect(jobs.map((job) => job.kind)).toEqual(['subscription.cycle']);
    }
    const [job] = await jobsOf(daemon, subscriptionId!);
    expect(job!.dueAt.toISOString()).toBe(new Date(current.current_period_end).toISOString());

    daemon.clock.set(new Date(current.current_period_end));
    await daemon.core.scheduler.drain();
    await suite.drain();
    const ended = (await merchant.api.get(`/v1/subscriptions/${subscriptionId}`)).json;
    expect(ended).toMatchObject({ status: 'canceled', cancel_at_period_end: true });
    expect(new Date(ended.ended_at).toISOString()).toBe(new Date(current.current_period_end).toISOString());
    expect((await merchant.api.get(`/v1/subscriptions/${kept.subscriptionId}`)).json.status).toBe('active');
    const forEnded = receiver.received
      .filter((delivery) => delivery.json.data.id === subscriptionId)
      .map((delivery) => delivery.json.type);
    expect(forEnded).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.updated',
      'subscription.revoked',
    ]);
  });

  it('retake a claim whose daemon died once its lease runs out, and run it once', async () => {
    const daemon = suite.daemon;
    const runs: string[] = [];
    daemon.core.scheduler.register('test.lease', async (_trx, job) => {
      runs.push(job.subjectId);
    });
    // A daemon schedules it, claims it and dies before finishing (in one transaction: no worker sees it free).
    const now = daemon.clock.now();
    const claimed = await transaction(daemon.core.db, async (trx) => {
      await schedule(trx, { kind: 'test.lease', subjectId: 'subject-1', dueAt: now }, now);
      return scheduledJobsRepository(trx).claimDue(now, new Date(now.getTime() + SCHEDULER.leaseMs), 'dead-daemon', 10);
    });
    expect(claimed.map((job) => job.subjectId)).toEqual(['subject-1']);

    daemon.clock.advance(SCHEDULER.leaseMs - 1);
    await daemon.core.scheduler.drain();
    expect(runs).toEqual([]);
    daemon.clock.advance(1);
    await daemon.core.scheduler.drain();
    expect(runs).toEqual(['subject-1']);
    expect(await jobsOf(daemon, 'subject-1')).toEqual([]);
  });

  it('retry a failed job with backoff, keeping its error, and schedule the same job once', async () => {
    const daemon = suite.daemon;
    let calls = 0;
    daemon.core.scheduler.register('test.flaky', async () => {
      calls += 1;
      if (calls === 1) throw new Error('the first attempt fails');
    });
    await scheduleNow(daemon, 'test.flaky', 'subject-2');
    await scheduleNow(daemon, 'test.flaky', 'subject-2', (await jobsOf(daemon, 'subject-2'))[0]!.dueAt);
    expect(await jobsOf(daemon, 'subject-2')).toHaveLength(1);
    await daemon.core.scheduler.drain();
    const [failed] = await jobsOf(daemon, 'subject-2');
    expect(failed).toMatchObject({ attempts: 1, lastError: 'the first attempt fails', claimedBy: null });
    expect(failed!.runAt!.getTime() - daemon.clock.now().getTime()).toBe(30_000);
    await daemon.core.scheduler.drain();
    expect(calls).toBe(1);
    daemon.clock.advance(30_000);
    await daemon.core.scheduler.drain();
    expect(calls).toBe(2);
    expect(await jobsOf(daemon, 'subject-2')).toEqual([]);
  });

  it.runIf(testDialect === 'postgres')(
    'PostgreSQL: two daemons share 300 due jobs, each done exactly once',
    async () => {
      const database = await createTestDatabase();
      const daemons = await Promise.all([0, 1].map(() => startTestDaemon({ databaseUrl: database.url })));
      try {
        const [a] = daemons;
        await a!.core.db.schema.createTable('test_effects', (t) => {
          t.string('subject_id').notNullable();
          t.string('daemon').notNullable();
        });
        daemons.forEach((daemon, index) =>
          daemon.core.scheduler.register('test.shared', async (trx, job) => {
            await trx('test_effects').insert({ subject_id: job.subjectId, daemon: String(index) });
          }),
        );
        await transaction(a!.core.db, async (trx) => {
          for (let i = 0; i < 300; i++)
            await schedule(trx, { kind: 'test.shared', subjectId: `s${i}`, dueAt: a!.clock.now() }, a!.clock.now());
        });
        await Promise.all(daemons.map((daemon) => daemon.core.scheduler.drain()));
        const rows = (await a!.core.db('test_effects').select('subject_id', 'daemon')) as Array<{
          subject_id: string;
          daemon: string;
        }>;
        expect(rows).toHaveLength(300);
        expect(new Set(rows.map((row) => row.subject_id)).size).toBe(300);
        expect(Number((await a!.core.db('scheduled_jobs').count({ n: '*' }))[0]!.n)).toBe(0);
      } finally {
        await Promise.all(daemons.map((daemon) => daemon.close()));
        await database.drop();
      }
    },
  );
});
