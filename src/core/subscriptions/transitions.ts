import { recordStateChanged } from '../customers/state.js';
import type { Db } from '../database/index.js';
import { syncSubscriptionGrants } from '../grant-triggers/triggers.js';
import { recordEvents, type OutboxEvent } from '../kernel/outbox.js';
import type { EmbedOptions } from '../products/embedded.js';
import { schedule } from '../scheduler/schedule.js';
import { FINAL_USAGE_JOB } from './cycle-hooks.js';
import { loadSubscriptionWires } from './loaders.js';
import type { Subscription } from './repository.js';
import { activeSubscriptionsOf } from './state.js';

/**
 * What happened to a subscription in one change, as Polar names it in its events: `canceled` (set to end, or ended
 * without having been set to), `uncanceled`, `revoked` (it ended: revoked now, or canceled and its period over),
 * `paused` (it stopped renewing and its benefits go until it resumes), `resumed`.
 */
export type SubscriptionTransition =
  'active' | 'canceled' | 'uncanceled' | 'past_due' | 'revoked' | 'paused' | 'resumed';

/** What the grant engine needs besides the two states: when benefits go after an end (the organization's grace). */
export interface LifecycleContext {
  /** When the benefits of a subscription that ended here are to be revoked (`subscription.benefits_revoke`). */
  benefitsRevokeAt?: Date;
}

/** The transitions between two states of one subscription, in the order Polar announces them. */
export function lifecycleTransitions(before: Subscription, after: Subscription): SubscriptionTransition[] {
  const transitions: SubscriptionTransition[] = [];
  const ended = !before.endedAt && !!after.endedAt;
  // A paid retry brings a past-due subscription back (Polar's `mark_active`).
  if (before.status === 'past_due' && after.status === 'active') transitions.push('active');
  if (before.status !== 'past_due' && after.status === 'past_due') transitions.push('past_due');
  if (!before.canceledAt && after.canceledAt) transitions.push('canceled');
  if (before.canceledAt && !after.canceledAt && !after.endedAt) transitions.push('uncanceled');
  if (ended) transitions.push('revoked');
  if (before.status !== 'paused' && after.status === 'paused') transitions.push('paused');
  if (before.status === 'paused' && after.status !== 'paused' && !after.endedAt) transitions.push('resumed');
  return transitions;
}

/**
 * The one place a change to a live subscription is announced, inside the change's transaction: Polar's sequence
 * (`_after_subscription_updated`): `subscription.updated` first, then one event per transition, then
 * `customer.state_changed`. Whatever must follow a subscription's lifecycle hooks in here (benefit grants: a change
 * of status, product or end schedules the grant engine's sync, which grants into active or trialing and revokes
 * once ended or paused), so every path that cancels, uncancels or ends a subscription reaches it. New subscriptions are
 * announced by the checkout's fulfilment (checkouts/fulfil.ts), which batches its events with the purchase's.
 */
export async function announceLifecycle(
  trx: Db,
  before: Subscription,
  after: Subscription,
  at: Date,
  options: EmbedOptions,
  context: LifecycleContext = {},
): Promise<SubscriptionTransition[]> {
  const transitions = lifecycleTransitions(before, after);
  const [data] = await loadSubscriptionWires(trx, [after], options);
  const organizationId = after.organizationId;
  const events: OutboxEvent[] = [{ organizationId, type: 'subscription.updated', data, at }];
  for (const transition of transitions) events.push({ organizationId, type: `subscription.${transition}`, data, at });
  await recordEvents(trx, events);
  await recordStateChanged(trx, after.customerId, at, activeSubscriptionsOf);
  const endedNow = !before.endedAt && !!after.endedAt;
  // Usage since the last cycle is billed in a final order. Due a millisecond earlier than the grant sync below (jobs
  // run in due order), so the bill counts the credits the revocation then takes back.
  if (endedNow)
    await schedule(trx, { kind: FINAL_USAGE_JOB, subjectId: after.id, dueAt: new Date(at.getTime() - 1) }, at);
  // An end whose benefits outlive it (the organization's grace period) is synced by the revocation job at that time.
  const graced = endedNow && context.benefitsRevokeAt !== undefined;
  if ((before.status !== after.status || before.productId !== after.productId || endedNow) && !graced)
    await syncSubscriptionGrants(trx, after.id, at);
  return transitions;
}
