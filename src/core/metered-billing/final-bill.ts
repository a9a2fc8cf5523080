import { uuidv7 } from '../kernel/ids.js';
import { allocateInvoiceNumber } from '../checkouts/fulfil.js';
import { checkoutsRepository } from '../checkouts/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { discountsRepository } from '../discounts/repository.js';
import { recordEvents } from '../kernel/outbox.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order, type OrderItem } from '../orders/repository.js';
import type { EmbedOptions } from '../products/embedded.js';
import { chargeJob } from '../renewals/charge-job.js';
import { cycleTotals, discountApplies } from '../renewals/pricing.js';
import { markOrderPaid } from '../renewals/settle.js';
import { schedule } from '../scheduler/schedule.js';
import type { JobHandler } from '../scheduler/service.js';
import { subscriptionsRepository, type Subscription } from '../subscriptions/repository.js';
import { taxBasisPointsFor } from '../tax/service.js';
import { billUsage } from './usage.js';

/**
 * FINAL_USAGE_JOB (subscriptions/cycle-hooks.ts): a subscription that ended (canceled at its period end, or revoked)
 * owes the usage of its metered prices since its last cycle. It is billed in a last `subscription_cycle` order with
 * one line per metered price (no plan line: the period was paid in advance), discounted and taxed as the cycle
 * orders were, and charged like them; the meters are reset. Nothing used, nothing billed: no order.
 */
export function finalUsageHandler(options: EmbedOptions): JobHandler {
  return async (trx, job, now) => {
    const subscription = await subscriptionsRepository(trx).lock(job.subjectId);
    if (!subscription?.endedAt) return;
    const usage = await billUsage(trx, subscription, now, options.readCache);
    if (!usage.some((line) => line.amount > 0)) return;
    await writeFinalOrder(trx, subscription, usage, now, options);
  };
}

async function writeFinalOrder(
  trx: Db,
  subscription: Subscription,
  usage: Awaited<ReturnType<typeof billUsage>>,
  now: Date,
  options: EmbedOptions,
): Promise<void> {
  const checkout = subscription.checkoutId ? await checkoutsRepository(trx).findById(subscription.checkoutId) : null;
  const address =
    checkout?.customerBillingAddress ??
    (await customersRepository(trx).findAnyById(subscription.customerId))?.billingAddress ??
    null;
  const discount = subscription.discountId ? await discountsRepository(trx).findById(subscription.discountId) : null;
  const applies = discountApplies(
    discount,
    subscription.startedAt ?? subscription.currentPeriodStart,
    subscription.currentPeriodStart,
  );
  const [first, ...rest] = usage;
  const totals = cycleTotals({
    plan: { label: first!.label, amount: first!.amount },
    items: rest.map((line) => ({ label: line.label, amount: line.amount, productPriceId: line.price.id })),
    carriedCredit: subscription.carriedCredit,
    discount: applies ? discount : null,
    currency: subscription.currency,
    taxBasisPoints: await taxBasisPointsFor(trx, subscription.organizationId, address),
  });
  const order: Order = {
    id: uuidv7(now.getTime()),
    organizationId: subscription.organizationId,
    status: 'pending',
    billingReason: 'subscription_cycle',
    customerId: subscription.customerId,
    productId: subscription.productId,
    productPriceId: subscription.productPriceId,
    discountId: applies ? subscription.discountId : null,
    subscriptionId: subscription.id,
    checkoutId: null,
    subtotalAmount: totals.subtotalAmount,
    discountAmount: totals.discountAmount,
    netAmount: totals.netAmount,
    taxAmount: totals.taxAmount,
    totalAmount: totals.totalAmount,
    refundedAmount: 0,
    refundedTaxAmount: 0,
    currency: subscription.currency,
    billingName: null,
    billingAddress: address,
    invoiceNumber: await allocateInvoiceNumber(trx, subscription.organizationId, options.readCache),
    invoiceGeneratedAt: null,
    paymentProcessor: subscription.paymentProcessor,
    paymentReference: null,
    metadata: subscription.metadata,
    customFieldData: subscription.customFieldData,
    createdAt: now,
    modifiedAt: null,
  };
  const items: OrderItem[] = totals.lines.map((line, position) => ({
    id: uuidv7(now.getTime()),
    orderId: order.id,
    label: line.label,
    amount: line.amount,
    taxAmount: position === 0 ? totals.taxAmount : 0,
    proration: false,
    productPriceId: position === 0 ? first!.price.id : (line.productPriceId ?? null),
    position,
    createdAt: now,
  }));
  // The credit this order used is spent; what it could not use has nowhere left to go.
  if (subscription.carriedCredit > 0)
    await subscriptionsRepository(trx).save({ ...subscription, carriedCredit: 0, modifiedAt: now });
  await ordersRepository(trx).deferInsert(order);
  await ordersRepository(trx).deferInsertItems(items);
  const [data] = await loadOrderWires(trx, [order], options);
  await recordEvents(trx, [{ organizationId: order.organizationId, type: 'order.created', data, at: now }]);
  if (order.totalAmount <= 0) await markOrderPaid(trx, order, null, now, options);
  else await schedule(trx, chargeJob(order.id, now), now);
}
