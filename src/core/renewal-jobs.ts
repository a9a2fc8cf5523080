import { syncSubscriptionGrants } from './grant-triggers/triggers.js';
import { meteredCycleHook, meteredProbe } from './metered-billing/cycle-hook.js';
import { finalUsageHandler } from './metered-billing/final-bill.js';
import type { ReadCache } from './cache/read-cache.js';
import type { EmbedOptions } from './products/embedded.js';
import type { Scheduler } from './scheduler/service.js';
import { pauseProbe, pendingUpdateProbe, prorationProbe } from './subscription-changes/cycle-probes.js';
import { pauseCycleHook, pendingUpdateCycleHook, prorationCycleHook } from './subscription-changes/hooks.js';
import { RESUME_JOB, resumeHandler } from './subscription-changes/pause.js';
import { CYCLE_JOB, FINAL_USAGE_JOB, type CycleHook } from './subscriptions/cycle-hooks.js';
import { TRIAL_REMINDER_JOB } from './subscriptions/cycle-job.js';
import type { CycleHookProbes } from './subscriptions/cycle-probes.js';
import { chargeBatchHandler } from './renewals/charge-batch.js';
import { CHARGE_JOB, chargeHandler, type ChargeDeps } from './renewals/charge-job.js';
import { cycleBatchHandler } from './renewals/cycle-batch.js';
import { cycleHandler, type CycleDeps } from './renewals/cycle.js';
import { BENEFITS_REVOKE_JOB, benefitsRevokeHandler } from './renewals/revocation.js';
import { trialReminderHandler } from './renewals/trials.js';

/**
 * What a cycle carries out at the period boundary (subscriptions/cycle-hooks.ts): pauses, pending plan changes,
 * proration, then metered usage (last: a hook that stops the cycle, a pause, leaves the usage for the cycle that
 * bills), each with the probe that lets a batch of renewals ask it once which subscriptions it concerns.
 */
export function renewalCycle(embed: EmbedOptions & { readCache: ReadCache }): CycleDeps {
  const pauseHook = pauseCycleHook(embed);
  const pendingUpdateHook = pendingUpdateCycleHook(embed.readCache);
  const meteredHook = meteredCycleHook(embed.readCache);
  const hooks: CycleHook[] = [pauseHook, pendingUpdateHook, prorationCycleHook, meteredHook];
  const probes: CycleHookProbes = new Map([
    [pauseHook, pauseProbe],
    [pendingUpdateHook, pendingUpdateProbe],
    [prorationCycleHook, prorationProbe],
    [meteredHook, meteredProbe(embed.readCache)],
  ]);
  return { options: embed, hooks, probes };
}

/**
 * The subscription engine's scheduled work: cycles and their charges (one by one, and in batches when a storm falls
 * due at once: cycle-batch.ts, charge-batch.ts), final usage bills, trial reminders, benefit revocations at an end
 * plus the organization's grace period, resumes.
 */
export function registerRenewalJobs(scheduler: Scheduler, deps: { cycle: CycleDeps; charging: ChargeDeps }): void {
  const { cycle, charging } = deps;
  scheduler.register(CYCLE_JOB, cycleHandler(cycle));
  scheduler.registerBatch(CYCLE_JOB, cycleBatchHandler({ ...cycle, db: charging.db }));
  scheduler.registerPrepared(CHARGE_JOB, chargeHandler(charging));
  scheduler.registerBatch(CHARGE_JOB, chargeBatchHandler(charging));
  scheduler.register(FINAL_USAGE_JOB, finalUsageHandler(cycle.options));
  scheduler.register(TRIAL_REMINDER_JOB, trialReminderHandler({ mail: charging.mail, options: cycle.options }));
  scheduler.register(
    BENEFITS_REVOKE_JOB,
    benefitsRevokeHandler([(trx, subscription, at) => syncSubscriptionGrants(trx, subscription.id, at)]),
  );
  scheduler.register(RESUME_JOB, resumeHandler(cycle.options));
}
