import { uuidv7 } from '../kernel/ids.js';
import { allocateInvoiceNumber } from '../checkouts/fulfil.js';
import { checkoutsRepository } from '../checkouts/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db, Transaction } from '../database/index.js';
import { discountsRepository, type Discount } from '../discounts/repository.js';
import { recordEvents, type OutboxEvent } from '../kernel/outbox.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order, type OrderItem } from '../orders/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { findPrice } from '../products/read.js';
import { priceAmount } from '../checkouts/pricing.js';
import { schedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { taxBasisPointsFor } from '../tax/service.js';
import type { CycleHook, CycleItem } from '../subscriptions/cycle-hooks.js';
import type { CycleHookProbes } from '../subscriptions/cycle-probes.js';
import { cycleJob } from '../subscriptions/cycle-job.js';
import { BILLABLE } from '../subscriptions/lifecycle.js';
import { loadSubscriptionWires } from '../subscriptions/loaders.js';
import { periodEnd, type Interval } from '../subscriptions/periods.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { announceLifecycle } from '../subscriptions/transitions.js';
import { chargeJob } from './charge-job.js';
import { cycleTotals, discountApplies } from './pricing.js';
import { scheduleBenefitsRevocation } from './revocation.js';
import { markOrderPaid } from './settle.js';

export interface CycleDeps {
  options: EmbedOptions;
  /** Plan changes, proration and pauses carried out at the period boundary (subscriptions/cycle-hooks.ts). */
  hooks: readonly CycleHook[];
  /** Hooks that can say at once which subscriptions of a batch they concern (cycle-batch.ts); optional. */
  probes?: CycleHookProbes;
}

/**
 * The cycle job (CYCLE_JOB) at a subscription's period end or trial end. A subscription set to cancel ends here
 * (Polar's cycle: `canceled`, `ended_at` now). Otherwise every hook runs on the locked row, and unless one stops the
 * cycle, the period moves on by interval × count from the anchor (no drift, no gap, no overlap), a trial becomes
 * `active`, and a `subscription_cycle` order is written `pending` with its charge job; a total of 0 is paid at once.
 * Events in Polar's order: `subscription.updated`, `subscription.cycled`, `order.created`; the charge then adds
 * `order.updated`, `order.paid` and `customer.state_changed`.
 */
export function cycleHandler(deps: CycleDeps): JobHandler {
  return (trx, job, now) => runCycle(trx, job.subjectId, now, deps);
}

/** The cycle of one subscription now, if it is due (the job's work, and a trial ended at once). */
export async function runCycle(trx: Transaction, subscriptionId: string, now: Date, deps: CycleDeps): Promise<void> {
  const repo = subscriptionsRepository(trx);
  const current = await repo.lock(subscriptionId);
  if (!current || current.endedAt || !BILLABLE.has(current.status)) return;
  // A job left at an old time (a trial extended, a period already cycled) finds nothing due.
  if (cycleJob(current).dueAt > now) return;
  if (current.cancelAtPeriodEnd) {
    await endAtPeriodEnd(trx, current, now, deps.options);
    return;
  }
  const items: CycleItem[] = [];
  for (const hook of deps.hooks) {
    const result = await hook(trx, current, now);
    if (result.stop) return;
    items.push(...(result.items ?? []));
  }
  // A hook may have switched the product or price: bill what the row says now.
  const subscription = deps.hooks.length > 0 ? ((await repo.findById(current.id)) ?? current) : current;
  await bill(trx, subscription, items, now, deps.options);
}

async function endAtPeriodEnd(trx: Transaction, current: Subscription, now: Date, options: EmbedOptions) {
  const next: Subscription = { ...current, status: 'canceled', endedAt: now, modifiedAt: now };
  await subscriptionsRepository(trx).save(next);
  const revokeAt = await scheduleBenefitsRevocation(trx, next, now, options);
  await announceLifecycle(trx, current, next, now, options, { benefitsRevokeAt: revokeAt });
}

/**
 * The start every period is counted from: where a change restarted the count (a change of interval, a resume sets
 * `period_anchor` and resets `billed_periods`), else the trial's end for a subscription that had one, else its start.
 */
export function anchorOf(subscription: Subscription): Date {
  return (
    subscription.periodAnchor ?? subscription.trialEnd ?? subscription.startedAt ?? subscription.currentPeriodStart
  );
}

/**
 * The address taxed as at checkout (the checkout's billing address, else the customer's), and the amount a custom
 * price was bought at (the buyer chose it at checkout; it renews at that amount).
 */
async function checkoutTerms(trx: Db, subscription: Subscription) {
  const checkout = subscription.checkoutId ? await checkoutsRepository(trx).findById(subscription.checkoutId) : null;
  const address =
    checkout?.customerBillingAddress ??
    (await customersRepository(trx).findById(subscription.customerId))?.billingAddress ??
    null;
  const customAmount =
    checkout && checkout.productPriceId === subscription.productPriceId ? checkout.customAmount : null;
  return { address, customAmount };
}

/** What a cycle order is built from, read once per subscription (or once per batch, for what they share). */
export interface CycleTerms {
  found: NonNullable<Awaited<ReturnType<typeof findPrice>>>;
  discount: Discount | null;
  address: Order['billingAddress'];
  customAmount: number | null;
  taxBasisPoints: number;
  invoiceNumber: string;
}

/** The subscription's next period, its `subscription_cycle` order and the order's lines (no reads, no writes). */
export function buildCycle(current: Subscription, items: readonly CycleItem[], now: Date, terms: CycleTerms) {
  const { found, discount, address } = terms;
  const wasTrial = current.status === 'trialing';
  const start = wasTrial && current.trialEnd ? current.trialEnd : current.currentPeriodEnd;
  const interval = current.recurringInterval as Interval;
  const end = periodEnd(anchorOf(current), interval, current.recurringIntervalCount, current.billedPeriods + 1);
  const applies = discountApplies(discount, current.startedAt ?? current.currentPeriodStart, start);
  const planAmount = priceAmount(found.price, terms.customAmount);
  const totals = cycleTotals({
    plan: { label: found.product.name, amount: planAmount },
    items,
    carriedCredit: current.carriedCredit,
    discount: applies ? discount : null,
    currency: current.currency,
    taxBasisPoints: terms.taxBasisPoints,
  });
  const next: Subscription = {
    ...current,
    status: wasTrial ? 'active' : current.status,
    currentPeriodStart: start,
    currentPeriodEnd: end,
    billedPeriods: current.billedPeriods + 1,
    // An expired repeating discount (or a once discount after its first order) leaves the subscription.
    discountId: applies ? current.discountId : null,
    amount: totals.netAmount,
    carriedCredit: totals.carriedCredit,
    modifiedAt: now,
  };
  const order: Order = {
    id: uuidv7(now.getTime()),
    organizationId: current.organizationId,
    status: 'pending',
    billingReason: 'subscription_cycle',
    customerId: current.customerId,
    productId: current.productId,
    productPriceId: current.productPriceId,
    discountId: next.discountId,
    subscriptionId: current.id,
    checkoutId: null,
    subtotalAmount: totals.subtotalAmount,
    discountAmount: totals.discountAmount,
    netAmount: totals.netAmount,
    taxAmount: totals.taxAmount,
    totalAmount: totals.totalAmount,
    refundedAmount: 0,
    refundedTaxAmount: 0,
    currency: current.currency,
    billingName: null,
    billingAddress: address,
    invoiceNumber: terms.invoiceNumber,
    invoiceGeneratedAt: null,
    paymentProcessor: current.paymentProcessor,
    paymentReference: null,
    metadata: current.metadata,
    customFieldData: current.customFieldData,
    createdAt: now,
    modifiedAt: null,
  };
  const orderItems: OrderItem[] = totals.lines.map((line, position) => ({
    id: uuidv7(now.getTime()),
    orderId: order.id,
    label: line.label,
    amount: line.amount,
    // Tax is computed on the order's net (one rate: the buyer's address); the plan's line carries it.
    taxAmount: position === 0 ? totals.taxAmount : 0,
    proration: line.proration,
    productPriceId: position === 0 ? current.productPriceId : (line.productPriceId ?? null),
    position,
    createdAt: now,
  }));
  return { next, order, orderItems };
}

async function bill(trx: Transaction, current: Subscription, items: CycleItem[], now: Date, options: EmbedOptions) {
  const found = await findPrice(trx, current.productPriceId, options.readCache);
  const discount = current.discountId ? await discountsRepository(trx).findById(current.discountId) : null;
  const { address, customAmount } = await checkoutTerms(trx, current);
  if (!found) throw new Error(`price ${current.productPriceId} of subscription ${current.id} not found`);
  const taxBasisPoints = await taxBasisPointsFor(trx, current.organizationId, address);
  const invoiceNumber = await allocateInvoiceNumber(trx, current.organizationId, options.readCache);
  const { next, order, orderItems } = buildCycle(current, items, now, {
    found,
    discount,
    address,
    customAmount,
    taxBasisPoints,
    invoiceNumber,
  });
  await subscriptionsRepository(trx).save(next);
  await ordersRepository(trx).deferInsert(order);
  await ordersRepository(trx).deferInsertItems(orderItems);
  await schedule(trx, cycleJob(next), now);
  const [subscriptionData] = await loadSubscriptionWires(trx, [next], options);
  const [orderData] = await loadOrderWires(trx, [order], options);
  const organizationId = current.organizationId;
  const events: OutboxEvent[] = [
    { organizationId, type: 'subscription.updated', data: subscriptionData, at: now },
    { organizationId, type: 'subscription.cycled', data: subscriptionData, at: now },
    { organizationId, type: 'order.created', data: orderData, at: now },
  ];
  await recordEvents(trx, events);
  // Nothing to charge (a free plan, a full discount or credit): paid at once, as Polar does.
  if (order.totalAmount <= 0) await markOrderPaid(trx, order, null, now, options);
  else await schedule(trx, chargeJob(order.id, now), now);
}
