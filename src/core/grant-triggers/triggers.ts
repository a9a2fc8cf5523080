import type { JobRequest } from '../scheduler/repository.js';
import type { Db, Deferred } from '../database/index.js';
import { deferSchedule, deferScheduleMany, schedule } from '../scheduler/schedule.js';
import { GRANT_JOBS, compactId } from './kinds.js';
import { grantTriggersRepository } from './repository.js';

/**
 * How a change asks for grants or revocations: a durable job written in the change's own transaction, so the work
 * exists exactly when the change does. The job re-reads its holder when it runs and does what the holder's state
 * calls for, so asking twice, or asking for a change taken back since, is harmless.
 */

/** A paid one-time order: its product's benefits, granted in the background (checkouts/fulfil.ts, write-only). */
export function deferOrderGrants(on: Db, orderId: string, at: Date): Deferred {
  return deferSchedule(on, { kind: GRANT_JOBS.syncOrder, subjectId: orderId, dueAt: at }, at);
}

/** A new subscription: granted once it is active or trialing (checkouts/fulfil.ts, write-only). */
export function deferSubscriptionSync(on: Db, subscriptionId: string, at: Date): Deferred {
  return deferSchedule(on, { kind: GRANT_JOBS.syncSubscription, subjectId: subscriptionId, dueAt: at }, at);
}

/**
 * A subscription whose status or product changed: grants what it now entitles to and revokes the rest (into
 * active or trialing: granted; ended or paused: revoked; a product change: the old product's benefits revoked).
 */
export async function syncSubscriptionGrants(trx: Db, subscriptionId: string, at: Date): Promise<void> {
  await schedule(trx, { kind: GRANT_JOBS.syncSubscription, subjectId: subscriptionId, dueAt: at }, at);
}

/**
 * Revokes a subscription's grants at `dueAt` (now, or the end of a grace period), unless by then the subscription
 * is active or trialing again. `at` is the time of the change asking for it.
 */
export async function revokeSubscriptionGrants(
  trx: Db,
  subscriptionId: string,
  dueAt: Date,
  at: Date = dueAt,
): Promise<void> {
  await schedule(trx, { kind: GRANT_JOBS.revokeSubscription, subjectId: subscriptionId, dueAt }, at);
}

/**
 * A renewal order paid: each of the subscription's grants is cycled (`benefit_grant.cycled`). Only a subscription
 * that holds grants gets the job: one granted later (its sync job still due) is granted for the period it starts in,
 * so there is nothing to cycle, and most renewals of a storm hold none.
 */
export async function cycleGrants(trx: Db, subscriptionId: string, orderId: string, at: Date): Promise<void> {
  for (const write of await deferCycleGrants(trx, [{ subscriptionId, orderId }], at)) await write;
}

/** cycleGrants for a batch of renewals paid together: one read for all of them, their jobs as deferred writes. */
export async function deferCycleGrants(
  trx: Db,
  renewals: ReadonlyArray<{ subscriptionId: string; orderId: string }>,
  at: Date,
): Promise<Deferred[]> {
  const holding = await grantTriggersRepository(trx).holdingGrants(renewals.map((renewal) => renewal.subscriptionId));
  const jobs = renewals
    .filter((renewal) => holding.has(renewal.subscriptionId))
    .map((renewal) => cycleGrantsJob(renewal.subscriptionId, renewal.orderId, at));
  return deferScheduleMany(trx, jobs, at);
}

/** The job that cycles a renewal's grants. */
export function cycleGrantsJob(subscriptionId: string, orderId: string, at: Date): JobRequest {
  return { kind: GRANT_JOBS.cycle, subjectId: `${compactId(subscriptionId)}.${compactId(orderId)}`, dueAt: at };
}

/** A refund with `revoke_benefits`: the one-time order stops entitling its customer, and its grants are revoked. */
export async function revokeOrderGrants(trx: Db, orderId: string, at: Date): Promise<void> {
  await grantTriggersRepository(trx).markOrderBenefitsRevoked(orderId, at);
  await schedule(trx, { kind: GRANT_JOBS.syncOrder, subjectId: orderId, dueAt: at }, at);
}

/** A product's benefits changed: every current holder is synced in the background, in bounded batches. */
export async function productBenefitsChanged(trx: Db, productId: string, at: Date): Promise<void> {
  await schedule(trx, { kind: GRANT_JOBS.productHolders, subjectId: productId, dueAt: at }, at);
}

/** A benefit's properties changed: its live grants are updated in the background (`benefit_grant.updated`). */
export async function benefitPropertiesChanged(trx: Db, benefitId: string, at: Date): Promise<void> {
  await schedule(trx, { kind: GRANT_JOBS.benefitUpdated, subjectId: benefitId, dueAt: at }, at);
}

/** A benefit was deleted: its grants are revoked in the background (`benefit_grant.revoked`). */
export async function benefitDeleted(trx: Db, benefitId: string, at: Date): Promise<void> {
  await schedule(trx, { kind: GRANT_JOBS.benefitDeleted, subjectId: benefitId, dueAt: at }, at);
}

/**
 * The customer connected the account some grants were waiting for (GitHub, Discord): their holders are synced
 * again, which now grants them. In the transaction that stores the account.
 */
export async function retryGrantsAwaitingAccount(
  trx: Db,
  customerId: string,
  benefitTypes: readonly string[],
  at: Date,
): Promise<number> {
  const holders = await grantTriggersRepository(trx).releaseAwaitingAction(customerId, benefitTypes, at);
  for (const holder of holders) {
    if (holder.subscriptionId)
      await schedule(trx, { kind: GRANT_JOBS.syncSubscription, subjectId: holder.subscriptionId, dueAt: at }, at);
    else if (holder.orderId)
      await schedule(trx, { kind: GRANT_JOBS.syncOrder, subjectId: holder.orderId, dueAt: at }, at);
  }
  return holders.length;
}
