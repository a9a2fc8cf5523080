import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../kernel/ids.js';
import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import { validateTaxId } from '../customers/address.js';
import { customerToCreate, settleCustomer, updateWithDetails } from '../customers/find-or-create.js';
import { customerEvent, grantedBenefitsOf, stateChangedEvent, stateOf } from '../customers/state.js';
import { deferOrderGrants, deferSubscriptionSync } from '../grant-triggers/triggers.js';
import { CUSTOMER_SESSION_PREFIX, CUSTOMER_SESSION_TTL_MS } from '../customers/sessions.js';
import { customerWire } from '../customers/wire.js';
import { discountBaseWire } from '../discounts/wire.js';
import { sha256Hex } from '../kernel/crypto.js';
import { finishWith, together, type Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';
import { randomAlphanumeric } from '../kernel/ids.js';
import { deferEvents, type OutboxEvent } from '../kernel/outbox.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { Order, OrderItem } from '../orders/repository.js';
import { ordersRepository } from '../orders/repository.js';
import { orderWire } from '../orders/wire.js';
import type { Product, ProductPrice } from '../products/read.js';
import { loadPriceMeters, priceWire } from '../products/read.js';
import type { ProductWire } from '../products/schemas.js';
import type { Subscription } from '../subscriptions/repository.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import { periodEnd, type Interval } from '../subscriptions/periods.js';
import { cycleJob, trialReminderJob } from '../subscriptions/cycle-job.js';
import { normalizeEmail } from '../kernel/email.js';
import { activeTrial, trialEnd } from './trial.js';
import { trialRedemptionsRepository } from './trial-redemptions-repository.js';
import { deferSchedule } from '../scheduler/schedule.js';
import { activeMetersOf } from '../meters/customer-meters.js';
import { activeSubscriptionsOf, stateSubscription } from '../subscriptions/state.js';
import { orderSubscriptionWire, subscriptionWire } from '../subscriptions/wire.js';
import type { Checkout } from './repository.js';
import { checkoutsRepository } from './repository.js';
import { checkoutUpdatedEvent } from './service.js';
import { customerDeleted } from './existing-customer.js';
import { deferChargeAttempt } from '../payments/attempts.js';
import type { ChargeResult } from '../payments/processor.js';
import type { SavedCard } from '../payments/methods.js';
import { newPaymentMethod } from '../payment-methods/billing.js';
import { paymentMethodsRepository, type PaymentMethod } from '../payment-methods/repository.js';
import { discountOf, type CheckoutUrls } from './loaders.js';

export interface Fulfilment {
  /** The checkout as it ends: `succeeded`, with its customer, order and subscription. */
  checkout: Checkout;
  customer: Customer;
  order: Order;
  subscription: Subscription | null;
  customerSessionToken: string;
}

function invoicePrefix(slug: string): string {
  const letters = slug
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 8);
  return letters || 'INV';
}

/** The checkout's tax id in the customer's form (apply.ts validated it against the billing country). */
function taxIdOf(checkout: Checkout) {
  const country = checkout.customerBillingAddress?.country;
  return checkout.customerTaxId && country ? validateTaxId(checkout.customerTaxId, country) : null;
}

/**
 * Takes the organization's next invoice number. On PostgreSQL the caller does it in a statement of its own before the
 * order's transaction, so the counter row is locked for one statement, not for the whole fulfilment, and one
 * organization's purchases do not queue behind each other; on SQLite, where the one connection is one writer anyway,
 * inside the fulfilment's first trip. A fulfilment that fails afterwards leaves a gap in the numbers, as a database
 * sequence would.
 */
export async function allocateInvoiceNumber(
  db: Db,
  organizationId: string,
  readCache: ReadCache | null | undefined,
): Promise<string> {
  const organization = await organizationsRepository(db, readCache).findMerchantView(organizationId);
  return ordersRepository(db).nextInvoiceNumber(organizationId, invoicePrefix(organization?.slug ?? ''));
}

/** `count` invoice numbers of the organization at once, in order (a batch of renewals; see allocateInvoiceNumber). */
export async function allocateInvoiceNumbers(
  db: Db,
  organizationId: string,
  count: number,
  readCache: ReadCache | null | undefined,
): Promise<string[]> {
  const organization = await organizationsRepository(db, readCache).findMerchantView(organizationId);
  return ordersRepository(db).nextInvoiceNumbers(organizationId, invoicePrefix(organization?.slug ?? ''), count);
}

/**
 * What a paid (or free) checkout turns into, inside the caller's transaction: the customer (found or created), the
 * subscription for a recurring price, the order with its item, a customer session the buyer's browser can use for the
 * portal right away, the charge's audit record, the checkout moved to `succeeded`, and all their events in one
 * statement, built from what was written, never read back. Two trips on SQLite: first the customer (and the invoice
 * number), then everything else with the COMMIT, parents first (see finishWith).
 */
export async function fulfilCheckout(
  trx: Db,
  input: {
    checkout: Checkout;
    product: Product;
    price: ProductPrice;
    productWire: ProductWire;
    /** The number taken before the transaction, or how to take it inside (see allocateInvoiceNumber). */
    invoiceNumber: string | ((trx: Db) => Promise<string>);
    processor: string;
    /** The charge that paid for it; null for a free checkout. */
    charge: ChargeResult | null;
    /** The card the charge kept for renewals, with its details; null when none was kept. */
    savedMethod?: { processorReference: string; card: SavedCard } | null;
    at: Date;
    urls: CheckoutUrls;
  },
): Promise<Fulfilment> {
  const { checkout, product, price, productWire, at } = input;
  const organizationId = checkout.organizationId;
  const events: OutboxEvent[] = [];
  const details = {
    organizationId,
    externalId: checkout.externalCustomerId,
    email: checkout.customerEmail!,
    name: checkout.customerBillingName ?? checkout.customerName,
    billingAddress: checkout.customerBillingAddress,
    taxId: taxIdOf(checkout),
    metadata: checkout.customerMetadata,
  };
  const candidate = checkout.customerId ? null : customerToCreate(details, at);
  const [known, inserted, invoiceNumber] = await together(
    checkout.customerId ? customersRepository(trx).findById(checkout.customerId) : null,
    candidate ? customersRepository(trx).insertIfAbsent(candidate) : false,
    typeof input.invoiceNumber === 'string' ? input.invoiceNumber : input.invoiceNumber(trx),
  );
  if (!candidate && !known) throw customerDeleted();
  // A customer the checkout was made for takes its details as a found one does (Polar updates them too).
  const found = candidate
    ? await settleCustomer(trx, details, candidate, inserted, at)
    : await updateWithDetails(trx, known!, details, at);
  const { customer, created: customerIsNew } = found;
  if (found.created || found.updated) events.push(customerEvent(customer, found.created ? 'created' : 'updated', at));

  let subscription: Subscription | null = null;
  // A trial: the subscription is `trialing` until the trial's end, when the cycle bills it; this order is 0.
  const trial = product.recurringInterval ? activeTrial(checkout, product) : null;
  const endOfTrial = trial ? trialEnd(trial, at) : null;
  if (product.recurringInterval) {
    subscription = {
      id: randomUUID(),
      organizationId: checkout.organizationId,
      customerId: customer.id,
      productId: product.id,
      productPriceId: price.id,
      checkoutId: checkout.id,
      discountId: checkout.discountId,
      status: trial ? 'trialing' : 'active',
      amount: checkout.netAmount,
      currency: checkout.currency,
      recurringInterval: product.recurringInterval,
      recurringIntervalCount: product.recurringIntervalCount ?? 1,
      currentPeriodStart: at,
      currentPeriodEnd:
        endOfTrial ?? periodEnd(at, product.recurringInterval as Interval, product.recurringIntervalCount ?? 1, 1),
      trialStart: trial ? at : null,
      trialEnd: endOfTrial,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      startedAt: at,
      endsAt: null,
      endedAt: null,
      customerCancellationReason: null,
      customerCancellationComment: null,
      paymentProcessor: input.processor,
      paymentMethodId: null,
      paymentMethodReference: input.charge?.status === 'succeeded' ? input.charge.savedMethodReference : null,
      billedPeriods: trial ? 0 : 1,
      pastDueAt: null,
      carriedCredit: 0,
      pauseAtPeriodEnd: false,
      pausedAt: null,
      resumesAt: null,
      periodAnchor: null,
      metadata: checkout.metadata,
      customFieldData: checkout.customFieldData,
      createdAt: at,
      modifiedAt: null,
    };
  }

  const order: Order = {
    id: uuidv7(at.getTime()),
    organizationId: checkout.organizationId,
    status: 'paid',
    billingReason: subscription ? 'subscription_create' : 'purchase',
    customerId: customer.id,
    productId: product.id,
    productPriceId: price.id,
    discountId: checkout.discountId,
    subscriptionId: subscription?.id ?? null,
    checkoutId: checkout.id,
    subtotalAmount: trial ? 0 : checkout.subtotalAmount,
    discountAmount: trial ? 0 : checkout.discountAmount,
    netAmount: trial ? 0 : checkout.netAmount,
    taxAmount: trial ? 0 : checkout.taxAmount,
    totalAmount: trial ? 0 : checkout.totalAmount,
    refundedAmount: 0,
    refundedTaxAmount: 0,
    currency: checkout.currency,
    billingName: checkout.customerBillingName ?? checkout.customerName,
    billingAddress: checkout.customerBillingAddress,
    invoiceNumber,
    invoiceGeneratedAt: null,
    paymentProcessor: input.processor,
    paymentReference: input.charge?.processorReference ?? null,
    metadata: checkout.metadata,
    customFieldData: checkout.customFieldData,
    createdAt: at,
    modifiedAt: null,
  };
  const item: OrderItem = {
    id: uuidv7(at.getTime()),
    orderId: order.id,
    label: trial ? `${product.name} (trial)` : product.name,
    amount: order.subtotalAmount,
    taxAmount: order.taxAmount,
    proration: false,
    productPriceId: price.id,
    position: 0,
    createdAt: at,
  };
  const buyer = customerWire(customer);
  const discount = checkout.discountId ? await discountOf(trx, checkout.discountId, input.urls) : null;
  const discountWire = discount ? discountBaseWire(discount) : null;
  const orderData = orderWire(order, {
    customer: buyer,
    product: productWire,
    discount: discountWire,
    subscription: subscription ? orderSubscriptionWire(subscription) : null,
    items: [item],
  });
  events.push({ organizationId, type: 'order.created', data: orderData, at });
  if (subscription) {
    const subscriptionData = subscriptionWire(subscription, {
      customer: buyer,
      product: productWire,
      discount: discountWire,
      // The price is live in the product's wire unless archived since the checkout opened.
      price:
        productWire.prices.find((live) => live.id === price.id) ??
        priceWire(price, await loadPriceMeters(trx, [price])),
    });
    events.push({ organizationId, type: 'subscription.created', data: subscriptionData, at });
    events.push({ organizationId, type: 'subscription.active', data: subscriptionData, at });
  }
  events.push({ organizationId, type: 'order.paid', data: orderData, at });
  // A returning customer's other subscriptions (for their state) and whether they already have a default card are
  // read together.
  const savedMethod = subscription ? (input.savedMethod ?? null) : null;
  const [otherSubscriptions, defaultMethodId, grantedBenefits, activeMeters] = await together(
    customerIsNew ? [] : activeSubscriptionsOf(trx, customer.id),
    customerIsNew || !savedMethod ? null : paymentMethodsRepository(trx).defaultIdOf(customer.id),
    customerIsNew ? [] : grantedBenefitsOf(trx, customer.id),
    // A new customer has meters only from events sent by their external id before they existed.
    customerIsNew && customer.externalId === null ? [] : activeMetersOf(trx, customer.id, customer),
  );
  // The card kept for renewals becomes a saved method that the new subscription bills; the customer's default only
  // if they had none (payment-methods/billing.ts).
  let method: PaymentMethod | null = null;
  if (subscription && savedMethod) {
    method = newPaymentMethod({
      organizationId,
      customerId: customer.id,
      processor: input.processor,
      processorReference: savedMethod.processorReference,
      card: savedMethod.card,
      isDefault: defaultMethodId === null,
      at,
    });
    subscription.paymentMethodId = method.id;
  }
  // One state_changed for the whole purchase, with the state it ends in: their other subscriptions (none for a new
  // customer), then this one, the newest.
  const activeSubscriptions = [...otherSubscriptions, ...(subscription ? [stateSubscription(subscription)] : [])];
  events.push(stateChangedEvent(stateOf(customer, activeSubscriptions, grantedBenefits, activeMeters), at));
  const succeeded: Checkout = {
    ...checkout,
    status: 'succeeded',
    customerId: customer.id,
    orderId: order.id,
    subscriptionId: subscription?.id ?? null,
    modifiedAt: at,
  };
  events.push(await checkoutUpdatedEvent(trx, succeeded, input.urls, at));

  const reminder = subscription ? trialReminderJob(subscription, at) : null;
  const customerSessionToken = `${CUSTOMER_SESSION_PREFIX}${randomAlphanumeric(43)}`;
  const { charge } = input;
  // Writing just what changed is safe: only one party settles a `confirmed` checkout. That is the confirmation the
  // race let through, or a reconciler once the confirmation outlived its lease; the guard rolls back whichever of
  // the two comes second (as would the order's unique checkout_id), without reading an answer.
  await finishWith(
    trx,
    method ? paymentMethodsRepository(trx).deferInsert(method) : null,
    subscription ? subscriptionsRepository(trx).deferInsert(subscription) : null,
    // The cycle renews it (or ends it, when set to cancel) at the end of its first period or trial.
    subscription ? deferSchedule(trx, cycleJob(subscription), at) : null,
    reminder ? deferSchedule(trx, reminder, at) : null,
    subscription && trial && checkout.customerEmail
      ? trialRedemptionsRepository(trx).deferInsert({
          organizationId,
          productId: product.id,
          normalizedEmail: normalizeEmail(checkout.customerEmail),
          subscriptionId: subscription.id,
          at,
        })
      : null,
    ordersRepository(trx).deferInsert(order),
    checkoutsRepository(trx).deferGuardedChanges(checkout, succeeded, 'confirmed'),
    ordersRepository(trx).deferInsertItems([item]),
    customersRepository(trx).deferInsertSession(
      {
        id: randomUUID(),
        customerId: customer.id,
        returnUrl: null,
        expiresAt: new Date(at.getTime() + CUSTOMER_SESSION_TTL_MS),
        createdAt: at,
      },
      sha256Hex(customerSessionToken),
    ),
    charge
      ? deferChargeAttempt(trx, {
          organizationId,
          processor: input.processor,
          amount: order.totalAmount,
          currency: checkout.currency,
          checkoutId: checkout.id,
          orderId: order.id,
          customerId: customer.id,
          result: charge,
          at,
        })
      : null,
    ...deferEvents(trx, events).writes,
    // The product's benefits are granted by a job written with the purchase (grant-triggers).
    subscription ? deferSubscriptionSync(trx, subscription.id, at) : deferOrderGrants(trx, order.id, at),
  );
  return { checkout: succeeded, customer, order, subscription, customerSessionToken };
}
