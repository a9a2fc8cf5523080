import type { Db, Transaction } from '../database/index.js';
import { DAY } from '../kernel/clock.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { schedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';

/**
 * Benefits of an ended subscription go at the end plus the organization's `benefit_revocation_grace_period` (days;
 * Polar offers 0, 2, 7, 14 or 21). The end itself is announced at once (announceLifecycle, with this time); the
 * `subscription.benefits_revoke` job at that time calls the revocation hooks, which the grant engine provides.
 */
export const BENEFITS_REVOKE_JOB = 'subscription.benefits_revoke';

/** Revokes what an ended subscription granted; runs in the job's transaction, at the end plus the grace period. */
export type BenefitRevocationHook = (trx: Db, subscription: Subscription, at: Date) => Promise<void>;

export async function gracePeriodDays(db: Db, organizationId: string, options: EmbedOptions): Promise<number> {
  const organization = await organizationsRepository(db, options.readCache).findMerchantView(organizationId);
  const days = Number(organization?.subscriptionSettings.benefit_revocation_grace_period ?? 0);
  return Number.isFinite(days) && days > 0 ? days : 0;
}

/** Schedules the revocation of an ended subscription's benefits; answers when it falls due. */
export async function scheduleBenefitsRevocation(
  trx: Db,
  subscription: Subscription,
  at: Date,
  options: EmbedOptions,
): Promise<Date> {
  const days = await gracePeriodDays(trx, subscription.organizationId, options);
  const dueAt = new Date(at.getTime() + days * DAY);
  await schedule(trx, { kind: BENEFITS_REVOKE_JOB, subjectId: subscription.id, dueAt }, at);
  return dueAt;
}

export function benefitsRevokeHandler(hooks: readonly BenefitRevocationHook[]): JobHandler {
  return async (trx: Transaction, job, now) => {
    const subscription = await subscriptionsRepository(trx).lock(job.subjectId);
    // Only a subscription that stayed ended loses its benefits (nothing today brings one back, but a grant engine may).
    if (!subscription?.endedAt) return;
    for (const hook of hooks) await hook(trx, subscription, now);
  };
}
