import { allocateInvoiceNumbers } from '../checkouts/fulfil.js';
import { checkoutsRepository } from '../checkouts/repository.js';
import { customersRepository } from '../customers/repository.js';
import { dialect, type Db, type Transaction } from '../database/index.js';
import { discountsRepository, type Discount } from '../discounts/repository.js';
import { deferEvents, serializePayloads, type OutboxEvent } from '../kernel/outbox.js';
import { sliceTimer } from '../kernel/turns.js';
import { sameContributions, type SubscriptionFacts } from '../metrics/contributions.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order, type OrderItem } from '../orders/repository.js';
import { findPrice, warmCatalog } from '../products/read.js';
import type { ScheduledJob } from '../scheduler/repository.js';
import { deferScheduleMany } from '../scheduler/schedule.js';
import type { BatchJobHandler } from '../scheduler/service.js';
import { taxBasisPointsFor } from '../tax/service.js';
import type { CycleHook, CycleItem } from '../subscriptions/cycle-hooks.js';
import { cycleJob } from '../subscriptions/cycle-job.js';
import { BILLABLE } from '../subscriptions/lifecycle.js';
import { loadRelated, loadSubscriptionWires } from '../subscriptions/loaders.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { chargeJob } from './charge-job.js';
import { buildCycle, type CycleDeps, type CycleTerms } from './cycle.js';
import { markOrderPaid } from './settle.js';

/**
 * The cycle jobs of one claim together (a storm of renewals due at one instant): what runCycle does for each, with
 * the reads the subscriptions share (prices, products, discounts, checkouts, customers, tax rates, the invoice
 * counter) made once per batch, and the writes sent as multi-row statements. Every cycle hook still runs on every
 * subscription, in the batch's transaction (the hooks of different subscriptions side by side, each one's in order).
 * A subscription set to cancel is left to runCycle (the per-job handler), as is one whose price is gone (its error
 * and retries are the job's own).
 */
type BatchDeps = CycleDeps & { db: Db };

export function cycleBatchHandler(deps: BatchDeps): BatchJobHandler<void> {
  return {
    // The catalog the cycles price and embed, kept in the read cache (filled only outside transactions) for the
    // batch's transaction and the batches after it.
    async prepare(jobs) {
      if (!deps.options.readCache) return;
      const billed = await subscriptionsRepository(deps.db).pricesBilled(jobs.map((job) => job.subjectId));
      await warmCatalog(
        deps.db,
        { productIds: billed.map((b) => b.productId), priceIds: billed.map((b) => b.productPriceId) },
        deps.options,
      );
    },
    run: (trx, jobs, now) => runCycles(trx, jobs, now, deps),
  };
}

interface Billing {
  subscription: Subscription;
  items: CycleItem[];
}

async function runCycles(trx: Transaction, jobs: ScheduledJob[], now: Date, deps: BatchDeps): Promise<ScheduledJob[]> {
  const jobOf = new Map(jobs.map((job) => [job.subjectId, job]));
  const locked = await subscriptionsRepository(trx).lockMany([...jobOf.keys()]);
  const left: ScheduledJob[] = [];
  const due: Subscription[] = [];
  for (const current of locked) {
    // Not billable any more, or a job left at an old time: nothing due, and the job is done (as in runCycle).
    if (current.endedAt || !BILLABLE.has(current.status) || cycleJob(current).dueAt > now) continue;
    if (current.cancelAtPeriodEnd) left.push(jobOf.get(current.id)!);
    else due.push(current);
  }
  // Each hook runs on the subscriptions its probe names (all of them, for a hook without one).
  const concerned = await Promise.all(
    deps.hooks.map((hook) => deps.probes?.get(hook)?.(trx, due, now) ?? Promise.resolve(null)),
  );
  const hooked = await Promise.all(
    due.map((current) =>
      runHooks(
        trx,
        current,
        now,
        deps.hooks.filter((_, i) => concerned[i] === null || concerned[i]!.has(current.id)),
      ),
    ),
  );
  const going = hooked.filter((result): result is Billing => result !== null);
  // A hook may have switched the product or price: bill what the rows say now.
  const reread =
    concerned.some((ids) => ids === null || ids.size > 0) && going.length > 0
      ? new Map(
          (await subscriptionsRepository(trx).findByIds(going.map((billing) => billing.subscription.id))).map((s) => [
            s.id,
            s,
          ]),
        )
      : null;
  const billings = going.map((billing) => ({
    subscription: reread?.get(billing.subscription.id) ?? billing.subscription,
    items: billing.items,
  }));
  const terms = await termsOf(trx, billings, deps);
  const built: Array<ReturnType<typeof buildCycle>> = [];
  const before = new Map(due.map((s) => [s.id, s]));
  // Subscriptions whose metrics contributions the cycle leaves as they were, before the hooks and after (a plain
  // renewal only moves the period): their rollups are not replaced.
  const same = new Set<string>();
  for (const billing of billings) {
    const found = terms.get(billing.subscription.id);
    if (!found) {
      left.push(jobOf.get(billing.subscription.id)!);
      continue;
    }
    const cycle = buildCycle(billing.subscription, billing.items, now, found);
    built.push(cycle);
    const was = before.get(cycle.next.id)!;
    const states = was === billing.subscription ? [was, cycle.next] : [was, billing.subscription, cycle.next];
    if (sameContributions(...(states.map(factsOf) as [SubscriptionFacts, ...SubscriptionFacts[]])))
      same.add(cycle.next.id);
  }
  if (built.length > 0) await write(trx, built, now, deps, same);
  return left;
}

/** What the metrics rules read of a subscription, as they read it from its wire. */
function factsOf(subscription: Subscription): SubscriptionFacts {
  return {
    id: subscription.id,
    organizationId: subscription.organizationId,
    customerId: subscription.customerId,
    productId: subscription.productId,
    status: subscription.status,
    amount: subscription.amount,
    currency: subscription.currency.toLowerCase(),
    recurringInterval: subscription.recurringInterval,
    recurringIntervalCount: subscription.recurringIntervalCount || 1,
    startedAt: subscription.startedAt,
    trialEnd: subscription.trialEnd,
    canceledAt: subscription.canceledAt,
    endedAt: subscription.endedAt,
  };
}

/** The hooks of one subscription, in order, on its locked row; null when one stopped the cycle. */
async function runHooks(trx: Db, current: Subscription, now: Date, hooks: CycleHook[]): Promise<Billing | null> {
  const items: CycleItem[] = [];
  for (const hook of hooks) {
    const result = await hook(trx, current, now);
    if (result.stop) return null;
    items.push(...(result.items ?? []));
  }
  return { subscription: current, items };
}

/**
 * Everything each order is built from, read once for the batch: a subscription missing from the answer has no price
 * any more (runCycle then fails its job with the reason).
 */
async function termsOf(trx: Db, billings: readonly Billing[], deps: BatchDeps): Promise<Map<string, CycleTerms>> {
  const subscriptions = billings.map((billing) => billing.subscription);
  const { readCache } = deps.options;
  const priceIds = [...new Set(subscriptions.map((s) => s.productPriceId))];
  const prices = new Map(
    await Promise.all(priceIds.map(async (id) => [id, await findPrice(trx, id, readCache)] as const)),
  );
  const discountIds = [...new Set(subscriptions.flatMap((s) => (s.discountId ? [s.discountId] : [])))];
  const discounts = new Map<string, Discount>(
    (discountIds.length ? await discountsRepository(trx).findByIds(discountIds) : []).map((d) => [d.id, d]),
  );
  const checkouts = new Map(
    (await checkoutsRepository(trx).findByIds(subscriptions.flatMap((s) => (s.checkoutId ? [s.checkoutId] : [])))).map(
      (checkout) => [checkout.id, checkout],
    ),
  );
  // The address taxed as at checkout: the checkout's billing address, else the customer's.
  const withoutAddress = subscriptions.filter(
    (s) => !(s.checkoutId && checkouts.get(s.checkoutId)?.customerBillingAddress),
  );
  const customers = new Map(
    (await customersRepository(trx).findAnyByIds([...new Set(withoutAddress.map((s) => s.customerId))])).map((c) => [
      c.id,
      c,
    ]),
  );
  const rates = new Map<string, Promise<number>>();
  const terms = new Map<string, Omit<CycleTerms, 'invoiceNumber'>>();
  await Promise.all(
    subscriptions.map(async (subscription) => {
      const found = prices.get(subscription.productPriceId);
      if (!found) return;
      const checkout = subscription.checkoutId ? checkouts.get(subscription.checkoutId) : undefined;
      const address =
        checkout?.customerBillingAddress ?? customers.get(subscription.customerId)?.billingAddress ?? null;
      const rateKey = JSON.stringify([subscription.organizationId, address?.country ?? null, address?.state ?? null]);
      if (!rates.has(rateKey)) rates.set(rateKey, taxBasisPointsFor(trx, subscription.organizationId, address));
      terms.set(subscription.id, {
        found,
        discount: subscription.discountId ? (discounts.get(subscription.discountId) ?? null) : null,
        address,
        // A custom price renews at the amount the buyer chose at checkout.
        customAmount:
          checkout && checkout.productPriceId === subscription.productPriceId ? checkout.customAmount : null,
        taxBasisPoints: await rates.get(rateKey)!,
      });
    }),
  );
  // Invoice numbers: one statement per organization for the batch, in the batch's order. On PostgreSQL in a
  // statement of its own (allocateInvoiceNumber's rule), so the counter row is locked for that statement and not
  // until this batch commits: the batches running side by side (the worker's, the clock's) would otherwise queue on
  // it. A batch that fails afterwards leaves a gap, as a checkout does. SQLite's one connection is this transaction's.
  const counter = dialect(trx) === 'postgres' ? deps.db : trx;
  const billed = subscriptions.filter((s) => terms.has(s.id));
  const byOrganization = new Map<string, Subscription[]>();
  for (const s of billed) byOrganization.set(s.organizationId, [...(byOrganization.get(s.organizationId) ?? []), s]);
  const complete = new Map<string, CycleTerms>();
  for (const [organizationId, members] of byOrganization) {
    const numbers = await allocateInvoiceNumbers(counter, organizationId, members.length, readCache);
    members.forEach((s, i) => complete.set(s.id, { ...terms.get(s.id)!, invoiceNumber: numbers[i]! }));
  }
  return complete;
}

async function write(
  trx: Db,
  built: ReadonlyArray<ReturnType<typeof buildCycle>>,
  now: Date,
  deps: CycleDeps,
  same: ReadonlySet<string>,
) {
  const { options } = deps;
  // The wires and payloads of a whole batch are built between two statements: the event loop gets turns in between.
  const pause = sliceTimer();
  const nexts = built.map((b) => b.next);
  const orders: Order[] = built.map((b) => b.order);
  const items: OrderItem[] = built.flatMap((b) => b.orderItems);
  const repo = ordersRepository(trx);
  const subscriptions = subscriptionsRepository(trx);
  for (const save of subscriptions.deferSaveMany(nexts)) await save;
  for (const insert of repo.deferInsertMany(orders)) await insert;
  for (const insert of repo.deferInsertManyItems(items)) await insert;
  const related = await loadRelated(
    trx,
    {
      customerIds: nexts.map((s) => s.customerId),
      productIds: nexts.map((s) => s.productId),
      discountIds: nexts.map((s) => s.discountId),
    },
    options,
  );
  await pause();
  const subscriptionData = await loadSubscriptionWires(trx, nexts, options, related);
  await pause();
  // The orders embed what was just written and loaded: the same customers and products, their items, the
  // subscriptions as saved.
  const itemsOf = new Map<string, OrderItem[]>(orders.map((order) => [order.id, []]));
  for (const item of items) itemsOf.get(item.orderId)!.push(item);
  const orderData = await loadOrderWires(trx, orders, options, { related, items: itemsOf, subscriptions: nexts });
  await pause();
  const events: OutboxEvent[] = [];
  built.forEach(({ order }, i) => {
    const organizationId = order.organizationId;
    const sameContributions = same.has(nexts[i]!.id);
    events.push(
      { organizationId, type: 'subscription.updated', data: subscriptionData[i], at: now, sameContributions },
      { organizationId, type: 'subscription.cycled', data: subscriptionData[i], at: now, sameContributions },
      { organizationId, type: 'order.created', data: orderData[i], at: now },
    );
  });
  const charged = orders.filter((order) => order.totalAmount > 0);
  const payloads = await serializePayloads(events, pause);
  // The events last: their metrics rollups lock buckets every renewal of the hour shares, held until the commit.
  const writes = [
    ...deferScheduleMany(
      trx,
      [...nexts.map((next) => cycleJob(next)), ...charged.map((order) => chargeJob(order.id, now))],
      now,
    ),
    ...deferEvents(trx, events, payloads).writes,
  ];
  for (const statement of writes) await statement;
  // Nothing to charge (a free plan, a full discount or credit): paid at once, as Polar does.
  for (const order of orders) if (order.totalAmount <= 0) await markOrderPaid(trx, order, null, now, options);
}
