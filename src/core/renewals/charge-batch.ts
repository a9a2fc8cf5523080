import { customersRepository } from '../customers/repository.js';
import { grantedBenefitsOfMany, stateChangedEvent, stateOf } from '../customers/state.js';
import type { Db, Transaction } from '../database/index.js';
import { deferCycleGrants } from '../grant-triggers/triggers.js';
import { deferEvents, serializePayloads, type OutboxEvent } from '../kernel/outbox.js';
import { sliceTimer } from '../kernel/turns.js';
import { activeMetersOfMany } from '../meters/customer-meters.js';
import { subscriptionMeterWire, subscriptionUsage } from '../meters/subscription-meters.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order } from '../orders/repository.js';
import { warmCatalog } from '../products/read.js';
import { deferChargeAttempts } from '../payments/attempts.js';
import type { ChargeRequest, ChargeResult } from '../payments/processor.js';
import { scheduledJobsRepository, type ScheduledJob } from '../scheduler/repository.js';
import type { BatchJobHandler } from '../scheduler/service.js';
import { loadRelated } from '../subscriptions/loaders.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { ACTIVE_STATUSES, stateSubscription } from '../subscriptions/state.js';
import { CHARGE_JOB, chargeReference, missingMethod, type ChargeDeps } from './charge-job.js';
import { chargeFailed } from './dunning.js';
import { markOrderPaid } from './settle.js';

/**
 * The charge jobs of one claim together: every card charged (side by side) under its attempt's key before the
 * transaction, as chargeHandler does one, then all the outcomes recorded in one transaction. A paid order of an
 * active subscription (the usual renewal) is written in multi-row statements with its events (`order.updated`,
 * `order.paid`, then `customer.state_changed`); a decline, or a payment that brings a past-due subscription back, goes
 * through the per-order path (dunning, settle) in the same transaction. A charge whose order has another attempt in
 * flight is left to the per-job handler, which waits for it.
 */
export function chargeBatchHandler(deps: ChargeDeps): BatchJobHandler<Prepared> {
  return {
    prepare: (jobs, now) => chargeAll(deps, jobs, now),
    run: (trx, jobs, now, prepared) => recordAll(trx, deps, jobs, now, prepared),
  };
}

interface Prepared {
  /** By job id: the charge's outcome, or null when there was nothing to charge (the job is done). */
  results: Map<string, ChargeResult | null>;
}

async function chargeAll(deps: ChargeDeps, jobs: ScheduledJob[], now: Date): Promise<Prepared> {
  const { db, processor } = deps;
  const orders = new Map(
    (await ordersRepository(db).findByIds(jobs.map((job) => job.subjectId))).map((order) => [order.id, order]),
  );
  const subscriptions = new Map(
    (
      await subscriptionsRepository(db).findByIds(
        [...orders.values()].flatMap((order) => (order.subscriptionId ? [order.subscriptionId] : [])),
      )
    ).map((subscription) => [subscription.id, subscription]),
  );
  // The catalog the outcomes' events embed, kept in the read cache for this batch's transaction and the cycles and
  // charges after it.
  await warmCatalog(
    db,
    {
      productIds: [...orders.values()].flatMap((order) => (order.productId ? [order.productId] : [])),
      priceIds: [...orders.values()].flatMap((order) => (order.productPriceId ? [order.productPriceId] : [])),
    },
    deps.options,
  );
  const busy = await scheduledJobsRepository(db).otherClaimedMany(CHARGE_JOB, jobs, now);
  const results = new Map<string, ChargeResult | null>();
  const charges: Array<{ job: ScheduledJob; methodReference: string; request: Omit<ChargeRequest, 'saveMethod'> }> = [];
  for (const job of jobs) {
    // Another attempt of this order in flight: left out, so the per-job handler makes this one wait.
    if (busy.has(job.subjectId)) continue;
    const order = orders.get(job.subjectId);
    const subscription = order?.subscriptionId ? subscriptions.get(order.subscriptionId) : undefined;
    // An ended subscription's final usage order (written at or after the end) is charged by the per-job handler.
    if (order && subscription?.endedAt && order.status === 'pending' && order.createdAt >= subscription.endedAt)
      continue;
    if (!order || order.status !== 'pending' || !subscription || subscription.endedAt) {
      results.set(job.id, null);
      continue;
    }
    const reference = chargeReference(order.id, job.id);
    const request = { amount: order.totalAmount, currency: order.currency, reference };
    // A subscription bought before saved methods existed has none: a decline dunning does not retry.
    if (subscription.paymentMethodReference)
      charges.push({ job, methodReference: subscription.paymentMethodReference, request });
    else results.set(job.id, missingMethod(reference));
  }
  const answers = processor.chargeSavedMethods
    ? await processor.chargeSavedMethods(charges)
    : await Promise.all(charges.map((charge) => processor.chargeSavedMethod(charge.methodReference, charge.request)));
  charges.forEach(({ job }, i) => results.set(job.id, answers[i]!));
  if ([...results.values()].some((result) => result !== null)) deps.crashAt('renewal.charged');
  return { results };
}

async function recordAll(
  trx: Transaction,
  deps: ChargeDeps,
  jobs: ScheduledJob[],
  now: Date,
  { results }: Prepared,
): Promise<ScheduledJob[]> {
  const left = jobs.filter((job) => !results.has(job.id));
  const charged = jobs.filter((job) => results.get(job.id));
  const orders = new Map(
    (await ordersRepository(trx).lockMany(charged.map((job) => job.subjectId))).map((order) => [order.id, order]),
  );
  const outcomes = charged.flatMap((job) => {
    const order = orders.get(job.subjectId);
    return order && order.status === 'pending' ? [{ order, result: results.get(job.id)! }] : [];
  });
  if (outcomes.length === 0) return left;
  const subscriptions = new Map(
    (await subscriptionsRepository(trx).lockMany(outcomes.map(({ order }) => order.subscriptionId!))).map((s) => [
      s.id,
      s,
    ]),
  );
  for (const write of deferChargeAttempts(
    trx,
    outcomes.map(({ order, result }) => ({
      organizationId: order.organizationId,
      processor: deps.processor.name,
      amount: order.totalAmount,
      currency: order.currency,
      orderId: order.id,
      customerId: order.customerId,
      result,
      at: now,
    })),
  ))
    await write;
  const paid: Array<{ order: Order; reference: string }> = [];
  for (const { order, result } of outcomes) {
    const subscription = subscriptions.get(order.subscriptionId!);
    if (result.status === 'succeeded' && subscription?.status !== 'past_due')
      paid.push({ order, reference: result.processorReference });
    else if (result.status === 'succeeded')
      await markOrderPaid(trx, order, result.processorReference, now, deps.options);
    else await chargeFailed(trx, order, result, now, deps);
  }
  // The rows locked above are the subscriptions as they stand unless the per-order path changed one (a decline, a
  // past-due subscription made active); then they are read again.
  const unchanged = paid.length === outcomes.length ? [...subscriptions.values()] : undefined;
  if (paid.length > 0) await recordPaid(trx, deps, paid, unchanged, now);
  return left;
}

/** The usual renewal paid: what markOrderPaid does for one, for many at once. */
async function recordPaid(
  trx: Db,
  deps: ChargeDeps,
  paid: Array<{ order: Order; reference: string }>,
  locked: readonly Subscription[] | undefined,
  now: Date,
) {
  // As in the cycle batch: turns for the event loop between the stretches of wire building.
  const pause = sliceTimer();
  await ordersRepository(trx).markManyPaid(
    paid.map(({ order, reference }) => ({ id: order.id, paymentReference: reference })),
    now,
  );
  const orders: Order[] = paid.map(({ order, reference }) => ({
    ...order,
    status: 'paid',
    paymentReference: reference,
    modifiedAt: now,
  }));
  const customerIds = orders.map((order) => order.customerId);
  const customers = await customersRepository(trx).findAnyByIds(customerIds);
  // The orders embed the customers just read and the subscriptions locked by recordAll.
  const related = await loadRelated(
    trx,
    { customerIds, productIds: orders.map((order) => order.productId), discountIds: orders.map((o) => o.discountId) },
    deps.options,
    customers,
  );
  const wires = await loadOrderWires(trx, orders, deps.options, { related, subscriptions: locked });
  await pause();
  const [active, grants] = await Promise.all([
    subscriptionsRepository(trx).forCustomers(customerIds, [...ACTIVE_STATUSES]),
    grantedBenefitsOfMany(trx, customerIds),
  ]);
  const customerById = new Map(customers.map((customer) => [customer.id, customer]));
  const activeOf = new Map<string, typeof active>();
  for (const s of active) activeOf.set(s.customerId, [...(activeOf.get(s.customerId) ?? []), s]);
  const events: OutboxEvent[] = [];
  orders.forEach((order, i) => {
    events.push(
      { organizationId: order.organizationId, type: 'order.updated', data: wires[i], at: now },
      { organizationId: order.organizationId, type: 'order.paid', data: wires[i], at: now },
    );
  });
  // The states carry meters as every other customer.state_changed does; only metered subscriptions read usage.
  const usage = await subscriptionUsage(trx, active, deps.options.readCache);
  const meters = await activeMetersOfMany(trx, customers);
  await pause();
  for (const order of orders) {
    const customer = customerById.get(order.customerId);
    if (!customer) continue;
    const subscriptions = (activeOf.get(customer.id) ?? []).map((s) =>
      stateSubscription(
        s,
        (usage.get(s.id)?.usage ?? []).map((line) => subscriptionMeterWire(s, line)),
      ),
    );
    events.push(
      stateChangedEvent(stateOf(customer, subscriptions, grants.get(customer.id) ?? [], meters.get(customer.id)!), now),
    );
  }
  // A renewal paid renews what it grants (`benefit_grant.cycled`), as cycleGrants schedules it.
  const grantJobs = await deferCycleGrants(
    trx,
    orders.map((order) => ({ subscriptionId: order.subscriptionId!, orderId: order.id })),
    now,
  );
  const payloads = await serializePayloads(events, pause);
  // The events last, as in the cycle batch: their rollups lock the hour's shared buckets until the commit.
  for (const write of [...grantJobs, ...deferEvents(trx, events, payloads).writes]) await write;
}
