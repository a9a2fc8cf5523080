import type { Db } from '../database/index.js';
import { GRANT_JOBS, compactId, expandId } from '../grant-triggers/kinds.js';
import { ordersRepository, type Order } from '../orders/repository.js';
import type { BatchJobHandler, JobHandler } from '../scheduler/service.js';
import { schedule } from '../scheduler/schedule.js';
import type { Subscription } from '../subscriptions/repository.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import type { GrantEngine } from './engine.js';
import type { Holder } from './repository.js';
import { benefitGrantsRepository } from './repository.js';

/** Holders or grants one background job handles before it schedules its own continuation. */
export const GRANT_BATCH_SIZE = 100;

const ENDED_STATUSES = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused']);

function subscriptionHolder(subscription: Subscription): Holder {
  return {
    kind: 'subscription',
    id: subscription.id,
    organizationId: subscription.organizationId,
    customerId: subscription.customerId,
    productId: subscription.productId,
  };
}

function isLive(subscription: Subscription): boolean {
  return (subscription.status === 'active' || subscription.status === 'trialing') && !subscription.endedAt;
}

/**
 * What a subscription entitles to now: its benefits while active or trialing, none once it ended or is paused;
 * past due (inside the grace period) or incomplete leaves its grants as they are (Polar's enqueue_benefits_grants).
 */
function subscriptionEntitlement(subscription: Subscription): boolean | null {
  if (isLive(subscription)) return true;
  if (subscription.endedAt || ENDED_STATUSES.has(subscription.status)) return false;
  return null;
}

async function continueWith(trx: Db, kind: string, subjectId: string, now: Date): Promise<void> {
  await schedule(trx, { kind, subjectId, dueAt: now }, now);
}

/** The grant engine's scheduled jobs, by kind (registered in context.ts). */
export function grantJobHandlers(engine: GrantEngine): Record<string, JobHandler> {
  return {
    async [GRANT_JOBS.syncSubscription](trx, job, now) {
      const subscription = await subscriptionsRepository(trx).findById(job.subjectId);
      if (subscription)
        await engine.syncHolder(trx, subscriptionHolder(subscription), subscriptionEntitlement(subscription), now);
    },

    async [GRANT_JOBS.syncOrder](trx, job, now) {
      const order = await benefitGrantsRepository(trx).entitlingOrder(job.subjectId);
      if (order) await engine.syncHolder(trx, order.holder, order.entitled, now);
    },

    async [GRANT_JOBS.revokeSubscription](trx, job, now) {
      const subscription = await subscriptionsRepository(trx).findById(job.subjectId);
      // Back to active or trialing before the revocation fell due (a payment recovered in the grace period).
      if (!subscription || isLive(subscription)) return;
      await engine.syncHolder(trx, subscriptionHolder(subscription), false, now);
    },

    async [GRANT_JOBS.cycle](trx, job, now) {
      const [subscriptionPart, orderPart] = job.subjectId.split('.');
      const subscription = await subscriptionsRepository(trx).findById(expandId(subscriptionPart!));
      const order = await ordersRepository(trx).findById(expandId(orderPart!));
      if (!subscription || !renews(subscription, order)) return;
      await engine.cycleHolder(trx, subscription.id, subscription.customerId, now);
    },

    async [GRANT_JOBS.productHolders](trx, job, now) {
      // `<product>` starts with subscriptions; `<product>:<s|o>[:<cursor>]` continues.
      const [productId, phase = 's', cursor] = job.subjectId.split(':');
      const kind = phase === 's' ? 'subscription' : 'order';
      const ids = await benefitGrantsRepository(trx).productHolderIds(
        productId!,
        kind,
        cursor ? expandId(cursor) : null,
        GRANT_BATCH_SIZE,
      );
      const sync = kind === 'subscription' ? GRANT_JOBS.syncSubscription : GRANT_JOBS.syncOrder;
      for (const id of ids) await continueWith(trx, sync, id, now);
      if (ids.length === GRANT_BATCH_SIZE)
        await continueWith(trx, GRANT_JOBS.productHolders, `${productId}:${phase}:${compactId(ids.at(-1)!)}`, now);
      else if (phase === 's') await continueWith(trx, GRANT_JOBS.productHolders, `${productId}:o`, now);
    },

    async [GRANT_JOBS.benefitUpdated](trx, job, now) {
      const [benefitId, cursor] = job.subjectId.split(':');
      const grants = await benefitGrantsRepository(trx).batchForBenefit(
        benefitId!,
        cursor ? expandId(cursor) : null,
        GRANT_BATCH_SIZE,
        true,
      );
      for (const grant of grants) await continueWith(trx, GRANT_JOBS.update, grant.id, now);
      if (grants.length === GRANT_BATCH_SIZE)
        await continueWith(trx, GRANT_JOBS.benefitUpdated, `${benefitId}:${compactId(grants.at(-1)!.id)}`, now);
    },

    async [GRANT_JOBS.benefitDeleted](trx, job, now) {
      const [benefitId, cursor] = job.subjectId.split(':');
      const grants = await benefitGrantsRepository(trx).batchForBenefit(
        benefitId!,
        cursor ? expandId(cursor) : null,
        GRANT_BATCH_SIZE,
        true,
      );
      // The benefit is no longer live, so syncing each holder revokes its grant of it.
      for (const grant of grants) {
        if (grant.subscriptionId) await continueWith(trx, GRANT_JOBS.syncSubscription, grant.subscriptionId, now);
        else if (grant.orderId) await continueWith(trx, GRANT_JOBS.syncOrder, grant.orderId, now);
      }
      if (grants.length === GRANT_BATCH_SIZE)
        await continueWith(trx, GRANT_JOBS.benefitDeleted, `${benefitId}:${compactId(grants.at(-1)!.id)}`, now);
    },

    async [GRANT_JOBS.update](trx, job, now) {
      await engine.updateGrant(trx, job.subjectId, now);
    },
  };
}

/**
 * The grant cycles of a batch of renewals paid together: the subscriptions and orders read at once, then what the
 * per-job handler does for each. Only subscriptions holding grants get the job (grant-triggers' deferCycleGrants).
 */
export function grantBatchHandlers(engine: GrantEngine): Record<string, BatchJobHandler<void>> {
  return {
    [GRANT_JOBS.cycle]: {
      async run(trx, jobs, now) {
        const pairs = jobs.map((job) => {
          const [subscriptionPart, orderPart] = job.subjectId.split('.');
          return { subscriptionId: expandId(subscriptionPart!), orderId: expandId(orderPart!) };
        });
        const subscriptions = new Map(
          (await subscriptionsRepository(trx).findByIds(pairs.map((pair) => pair.subscriptionId))).map((s) => [
            s.id,
            s,
          ]),
        );
        const orders = new Map(
          (await ordersRepository(trx).findByIds(pairs.map((pair) => pair.orderId))).map((o) => [o.id, o]),
        );
        for (const { subscriptionId, orderId } of pairs) {
          const subscription = subscriptions.get(subscriptionId);
          const order = orders.get(orderId);
          if (!subscription || !renews(subscription, order)) continue;
          await engine.cycleHolder(trx, subscription.id, subscription.customerId, now);
        }
        return [];
      },
    },
  };
}

/**
 * Only a paid renewal of a subscription still running cycles its grants. The final usage bill of a subscription that
 * has ended is paid after its end, when its grants are being revoked: cycling them then would credit a meter for a
 * period that never comes, or not, depending on which job ran first.
 */
function renews(subscription: Subscription, order: Order | null | undefined): boolean {
  return (
    !!order && order.subscriptionId === subscription.id && order.status !== 'pending' && subscription.endedAt === null
  );
}
