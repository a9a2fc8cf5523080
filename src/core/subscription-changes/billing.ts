import { uuidv7 } from '../kernel/ids.js';
import { checkoutsRepository } from '../checkouts/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { applyBasisPoints } from '../kernel/money.js';
import { recordEvents, type OutboxEvent } from '../kernel/outbox.js';
import { loadOrderWires } from '../orders/loaders.js';
import { ordersRepository, type Order, type OrderItem } from '../orders/repository.js';
import type { BillingReason } from '../orders/schemas.js';
import { recordChargeAttempt } from '../payments/attempts.js';
import type { ChargeResult, PaymentProcessor } from '../payments/processor.js';
import type { EmbedOptions } from '../products/embedded.js';
import { taxBasisPointsFor } from '../tax/service.js';
import type { CycleItem } from '../subscriptions/cycle-hooks.js';
import type { Subscription } from '../subscriptions/repository.js';

/**
 * Charging a subscription's saved method now, for what a change bills at once (an invoiced plan change, a resume),
 * and writing the paid order. The charge happens outside any transaction (the processor is an outside system), under
 * the order's id as its idempotency key, before anything changes: a decline is a 402 and nothing else is written but
 * the attempt's audit row.
 */

export interface Charged {
  orderId: string;
  result: Extract<ChargeResult, { status: 'succeeded' }>;
}

/**
 * The tax a charge made now adds, as at checkout: the organization's rate for the buyer's address (the
 * subscription's checkout's billing address, else the customer's), on the net, rounded half away from zero.
 */
export async function taxOf(db: Db, subscription: Subscription, net: number): Promise<number> {
  const checkout = subscription.checkoutId ? await checkoutsRepository(db).findById(subscription.checkoutId) : null;
  const address =
    checkout?.customerBillingAddress ??
    (await customersRepository(db).findById(subscription.customerId))?.billingAddress ??
    null;
  return applyBasisPoints(net, await taxBasisPointsFor(db, subscription.organizationId, address));
}

export function paymentFailed(detail: string): DomainError {
  return new DomainError(402, 'PaymentFailed', detail);
}

export async function chargeNow(
  deps: { db: Db; processor: PaymentProcessor },
  subscription: Subscription,
  amount: number,
  at: Date,
): Promise<Charged> {
  if (!subscription.paymentMethodReference)
    throw new DomainError(409, 'PaymentMethodRequired', 'The subscription has no payment method to charge.');
  const orderId = uuidv7(at.getTime());
  const result = await deps.processor.chargeSavedMethod(subscription.paymentMethodReference, {
    amount,
    currency: subscription.currency,
    reference: orderId,
  });
  if (result.status === 'failed') {
    await transaction(deps.db, (trx) =>
      recordChargeAttempt(trx, {
        organizationId: subscription.organizationId,
        processor: deps.processor.name,
        amount,
        currency: subscription.currency,
        customerId: subscription.customerId,
        result,
        at,
      }),
    );
    throw paymentFailed(`The payment failed: ${result.declineMessage}`);
  }
  return { orderId, result };
}

/**
 * Gives back a charge whose change could not be applied after all (the subscription changed meanwhile), under a key
 * derived from the order's, so a retry cannot refund twice.
 */
export async function giveBack(
  deps: { db: Db; processor: PaymentProcessor },
  subscription: Subscription,
  charged: Charged,
  amount: number,
): Promise<void> {
  await deps.processor.refund(charged.result.processorReference, {
    amount,
    currency: subscription.currency,
    reference: `${charged.orderId}:refund`,
  });
}

/**
 * Writes the paid order of a charge made for `subscription` (as it is after the change), its items, the charge's
 * audit row and Polar's order events: `order.created` (pending), `order.updated` and `order.paid`.
 */
export async function writePaidOrder(
  trx: Db,
  input: {
    subscription: Subscription;
    charged: Charged;
    processor: string;
    billingReason: BillingReason;
    items: CycleItem[];
    /** The tax charged on the items' net (taxOf), carried by the last line. */
    taxAmount: number;
    invoiceNumber: string;
    at: Date;
    options: EmbedOptions;
  },
): Promise<Order> {
  const { subscription, charged, at } = input;
  const customer = await customersRepository(trx).findById(subscription.customerId);
  const net = input.items.reduce((sum, item) => sum + item.amount, 0);
  const total = net + input.taxAmount;
  const order: Order = {
    id: charged.orderId,
    organizationId: subscription.organizationId,
    status: 'paid',
    billingReason: input.billingReason,
    customerId: subscription.customerId,
    productId: subscription.productId,
    productPriceId: subscription.productPriceId,
    discountId: subscription.discountId,
    subscriptionId: subscription.id,
    checkoutId: null,
    subtotalAmount: net,
    discountAmount: 0,
    netAmount: net,
    taxAmount: input.taxAmount,
    totalAmount: total,
    refundedAmount: 0,
    refundedTaxAmount: 0,
    currency: subscription.currency,
    billingName: customer?.billingName ?? customer?.name ?? null,
    billingAddress: customer?.billingAddress ?? null,
    invoiceNumber: input.invoiceNumber,
    invoiceGeneratedAt: null,
    paymentProcessor: input.processor,
    paymentReference: charged.result.processorReference,
    metadata: {},
    customFieldData: {},
    createdAt: at,
    modifiedAt: at,
  };
  const items: OrderItem[] = input.items.map((item, position) => ({
    id: uuidv7(at.getTime()),
    orderId: order.id,
    label: item.label,
    amount: item.amount,
    taxAmount: position === input.items.length - 1 ? input.taxAmount : 0,
    proration: input.billingReason === 'subscription_update',
    productPriceId: position === input.items.length - 1 ? subscription.productPriceId : null,
    position,
    createdAt: at,
  }));
  const orders = ordersRepository(trx);
  await orders.deferInsert(order);
  await orders.deferInsertItems(items);
  await recordChargeAttempt(trx, {
    organizationId: order.organizationId,
    processor: input.processor,
    amount: total,
    currency: order.currency,
    orderId: order.id,
    customerId: order.customerId,
    result: charged.result,
    at,
  });
  const [paid] = await loadOrderWires(trx, [order], input.options);
  const organizationId = order.organizationId;
  const events: OutboxEvent[] = [
    {
      organizationId,
      type: 'order.created',
      data: { ...paid!, status: 'pending', paid: false, due_amount: order.totalAmount },
      at,
    },
    { organizationId, type: 'order.updated', data: paid, at },
    { organizationId, type: 'order.paid', data: paid, at },
  ];
  await recordEvents(trx, events);
  return order;
}
