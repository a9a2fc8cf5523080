import { randomUUID } from 'node:crypto';
import type { ReadCache } from '../cache/read-cache.js';
import { allocateInvoiceNumber } from '../checkouts/fulfil.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Clock } from '../kernel/clock.js';
import { DomainError } from '../kernel/errors.js';
import { organizationWire } from '../organizations/merchant-service.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { PaymentProcessor } from '../payments/processor.js';
import type { EmbedOptions } from '../products/embedded.js';
import { findPrice } from '../products/read.js';
import { schedule, unschedule } from '../scheduler/schedule.js';
import { pendingUpdatesRepository, prorationEntriesRepository } from '../subscriptions/changes-repository.js';
import { CYCLE_JOB, type CycleItem } from '../subscriptions/cycle-hooks.js';
import type { ProrationBehavior } from '../subscriptions/inputs.js';
import { alreadyCanceled } from '../subscriptions/lifecycle.js';
import { addInterval, type Interval } from '../subscriptions/periods.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import { chargeNow, giveBack, taxOf, writePaidOrder } from './billing.js';
import { prorationLines, restartLines, sum } from './proration.js';
import { changesInterval, onPlan, planOf, resolveTarget, type PlanTarget } from './target.js';

/**
 * A change of plan (Polar's update_product, polar-contract §3.6). `invoice` applies it now and charges the difference
 * at once in a `subscription_update` order (a decline is a 402 and nothing changes); `prorate` applies it now and
 * leaves the credit and debit for the next cycle order (prorationCycleHook); `next_period` leaves a pending update
 * for the cycle (pendingUpdateCycleHook). A change of interval restarts the period now and is always invoiced.
 * Trialing subscriptions change plan at once and bill nothing: the trial's end bills the new plan. A change whose
 * net is a credit charges nothing: the credit waits for the next cycle order, as Stripe's customer balance does.
 */

export interface ChangeDeps {
  db: Db;
  clock: Clock;
  processor: PaymentProcessor;
  readCache: ReadCache;
  options: EmbedOptions;
}

export function subscriptionLocked(): DomainError {
  return new DomainError(409, 'SubscriptionLocked', 'The subscription changed while this change was made; try again.');
}

export function inactiveSubscription(): DomainError {
  return new DomainError(403, 'InactiveSubscription', 'This subscription is not active.');
}

function checkChangeable(subscription: Subscription): void {
  if (subscription.endedAt || subscription.cancelAtPeriodEnd) throw alreadyCanceled();
  if (subscription.status !== 'active' && subscription.status !== 'trialing') throw inactiveSubscription();
}

/** Whether nothing that a change was computed from moved while it was being charged. */
function unchanged(before: Subscription, now: Subscription): boolean {
  return (
    now.productPriceId === before.productPriceId &&
    now.status === before.status &&
    now.amount === before.amount &&
    now.cancelAtPeriodEnd === before.cancelAtPeriodEnd &&
    now.currentPeriodEnd.getTime() === before.currentPeriodEnd.getTime()
  );
}

export async function organizationSettings(db: Db, readCache: ReadCache, organizationId: string) {
  return organizationWire((await organizationsRepository(db, readCache).findMerchantView(organizationId))!);
}

async function lockSame(trx: Db, before: Subscription): Promise<Subscription> {
  const locked = await subscriptionsRepository(trx).lock(before.id);
  if (!locked || !unchanged(before, locked)) throw subscriptionLocked();
  return locked;
}

/**
 * The credit and debit of moving `subscription` to `target` at `at` (a restart when the interval changes). The old
 * plan is credited at what a period of it bills (its price, after the discount), not at `amount`, which the cycle
 * sets to its last order's net, proration lines included.
 */
async function linesFor(deps: ChangeDeps, subscription: Subscription, target: PlanTarget, at: Date) {
  const old = await findPrice(deps.db, subscription.productPriceId, deps.readCache);
  const oldAmount = old ? (await planOf(deps.db, subscription, old.product, old.price)).amount : subscription.amount;
  const input = {
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    at,
    oldAmount,
    newAmount: target.amount,
    oldLabel: old?.product.name ?? 'the previous plan',
    newLabel: target.product.name,
  };
  return changesInterval(subscription, target) ? restartLines(input) : prorationLines(input);
}

/** The subscription on its new plan; a change of interval starts a new period now, and the cycle moves with it. */
async function switchPlan(trx: Db, current: Subscription, target: PlanTarget, at: Date): Promise<Subscription> {
  const next = onPlan(current, target, at);
  if (changesInterval(current, target) && current.status !== 'trialing') {
    // The new period, billed by this change, is the first one counted from here.
    next.periodAnchor = at;
    next.billedPeriods = 1;
    next.currentPeriodStart = at;
    next.currentPeriodEnd = addInterval(at, next.recurringInterval as Interval, next.recurringIntervalCount);
    await unschedule(trx, CYCLE_JOB, next.id);
    await schedule(trx, { kind: CYCLE_JOB, subjectId: next.id, dueAt: next.currentPeriodEnd }, at);
  }
  // An immediate change replaces a pending one (Polar).
  await pendingUpdatesRepository(trx).clear(next.id);
  await subscriptionsRepository(trx).save(next);
  return next;
}

function entries(subscription: Subscription, lines: CycleItem[], at: Date, orderId: string | null) {
  return lines.map((line) => ({
    id: randomUUID(),
    subscriptionId: subscription.id,
    label: line.label,
    amount: line.amount,
    currency: subscription.currency,
    orderId,
    billedAt: orderId ? at : null,
    createdAt: at,
  }));
}

export async function changePlan(
  deps: ChangeDeps,
  current: Subscription,
  input: { product_id: string; proration_behavior?: ProrationBehavior | null },
): Promise<Subscription> {
  const { db, options } = deps;
  const at = deps.clock.now();
  checkChangeable(current);
  const target = await resolveTarget(db, deps.readCache, current, input.product_id);
  const settings = await organizationSettings(db, deps.readCache, current.organizationId);
  let behavior: ProrationBehavior = input.proration_behavior ?? settings.subscription_settings.proration_behavior;
  if (behavior === 'prorate' && changesInterval(current, target)) behavior = 'invoice';

  if (behavior === 'next_period') {
    return transaction(db, async (trx) => {
      const locked = await lockSame(trx, current);
      await pendingUpdatesRepository(trx).put({
        id: randomUUID(),
        subscriptionId: locked.id,
        productId: target.product.id,
        productPriceId: target.price.id,
        appliesAt: locked.currentPeriodEnd,
        createdAt: at,
        modifiedAt: null,
      });
      const next = { ...locked, modifiedAt: at };
      await subscriptionsRepository(trx).save(next);
      await announceLifecycle(trx, locked, next, at, options);
      return next;
    });
  }

  const lines = current.status === 'trialing' ? [] : await linesFor(deps, current, target, at);
  const net = sum(lines);
  if (behavior === 'prorate' || net <= 0) {
    return transaction(db, async (trx) => {
      const locked = await lockSame(trx, current);
      const next = await switchPlan(trx, locked, target, at);
      await prorationEntriesRepository(trx).insert(entries(next, lines, at, null));
      await announceLifecycle(trx, locked, next, at, options);
      return next;
    });
  }

  const tax = await taxOf(db, current, net);
  const charged = await chargeNow(deps, current, net + tax, at);
  try {
    const invoiceNumber = await allocateInvoiceNumber(db, current.organizationId, deps.readCache);
    return await transaction(db, async (trx) => {
      const locked = await lockSame(trx, current);
      const next = await switchPlan(trx, locked, target, at);
      await prorationEntriesRepository(trx).insert(entries(next, lines, at, charged.orderId));
      await announceLifecycle(trx, locked, next, at, options);
      await writePaidOrder(trx, {
        subscription: next,
        charged,
        processor: deps.processor.name,
        billingReason: 'subscription_update',
        items: lines,
        taxAmount: tax,
        invoiceNumber,
        at,
        options,
      });
      return next;
    });
  } catch (error) {
    await giveBack(deps, current, charged, net + tax);
    throw error;
  }
}

/** PATCH {pending_update: null}: takes back a `next_period` change; nothing happens when there is none. */
export async function clearPendingUpdate(deps: ChangeDeps, current: Subscription): Promise<Subscription> {
  const at = deps.clock.now();
  return transaction(deps.db, async (trx) => {
    const locked = (await subscriptionsRepository(trx).lock(current.id)) ?? current;
    if (!(await pendingUpdatesRepository(trx).clear(locked.id))) return locked;
    const next = { ...locked, modifiedAt: at };
    await subscriptionsRepository(trx).save(next);
    await announceLifecycle(trx, locked, next, at, deps.options);
    return next;
  });
}
