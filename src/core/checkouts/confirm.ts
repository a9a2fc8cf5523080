import type { Clock } from '../kernel/clock.js';
import { fieldError, validationError, type FieldIssue } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { dialect, transaction, isGuardFailure } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { deferRedemption, isRedemptionRefused } from '../discounts/redemption.js';
import { deferEvents } from '../kernel/outbox.js';
import { missingAddressFields } from '../customers/address.js';
import { customersRepository } from '../customers/repository.js';
import { recordChargeAttempt, recordRefundAttempt } from '../payments/attempts.js';
import type { ChargeResult, PaymentProcessor } from '../payments/processor.js';
import type { ProductWire } from '../products/schemas.js';
import { applyCheckoutChangesWithProduct } from './apply.js';
import { customFieldDataIssues } from './custom-field-data.js';
import { checkoutsRepository, type Checkout } from './repository.js';
import type { CheckoutConfirmInput } from './schemas.js';
import type { CheckoutService } from './service.js';
import { checkoutUpdatedEvent, expired, notOpen, saveCheckout } from './service.js';
import { customerDeleted } from './existing-customer.js';
import { fulfilFinished } from './confirm-result.js';
import { allocateInvoiceNumber, fulfilCheckout } from './fulfil.js';
import { discountOf, type CheckoutUrls } from './loaders.js';

/**
 * Confirming a checkout. The race for it is decided first, in a short transaction that moves it from `open` to
 * `confirmed` (and redeems its discount): of N concurrent confirmations exactly one gets past it, so exactly one
 * charge is made. The charge runs outside any transaction (it may be slow); its outcome is then written in one
 * transaction with everything it causes, or, on a decline, the checkout reopens and the discount is given back.
 */
export function createCheckoutConfirmation(deps: {
  db: Db;
  clock: Clock;
  urls: CheckoutUrls;
  processor: PaymentProcessor;
  checkouts: CheckoutService;
}) {
  const { db, clock, urls: baseUrls, processor, checkouts } = deps;

  function requirements(
    checkout: Checkout,
    productWire: ProductWire,
    token: string | null | undefined,
    paymentNeeded: boolean,
  ): void {
    const issues: FieldIssue[] = [];
    if (!checkout.customerEmail && !checkout.customerId)
      issues.push({ loc: ['body', 'customer_email'], msg: 'Field required', type: 'missing' });
    const address = checkout.customerBillingAddress;
    if (checkout.requireBillingAddress) {
      if (!address) issues.push({ loc: ['body', 'customer_billing_address'], msg: 'Field required', type: 'missing' });
      else
        for (const field of ['line1', 'city', 'postal_code'] as const)
          if (!address[field])
            issues.push({ loc: ['body', 'customer_billing_address', field], msg: 'Field required', type: 'missing' });
    }
    if (address)
      for (const field of missingAddressFields(address))
        issues.push({ loc: ['body', 'customer_billing_address', field], msg: 'Field required', type: 'missing' });
    issues.push(
      ...customFieldDataIssues(checkout.customFieldData, productWire.attached_custom_fields, { requireAll: true }),
    );
    if (paymentNeeded && !token)
      issues.push({ loc: ['body', 'confirmation_token_id'], msg: 'Field required', type: 'missing' });
    if (issues.length > 0) throw validationError(issues);
  }

  return async function confirm(clientSecret: string, input: CheckoutConfirmInput) {
    const current = await checkouts.byClientSecret(clientSecret);
    if (current.status === 'expired') throw expired();
    if (current.status !== 'open') throw notOpen();
    const { confirmation_token_id: token, payment_method_type: _m, allow_trial: _t, seats: _s, ...changes } = input;
    const now = clock.now();
    // One request renders the same product many times (checkout, order, subscription, their events): build it once.
    const urls = { ...baseUrls, memo: new Map() };
    const {
      checkout: prepared,
      product,
      price,
      productWire,
    } = await applyCheckoutChangesWithProduct(db, current, changes, now, urls);
    // A recurring paid price keeps the card for renewals even when nothing is due today (a 100 % first-month discount).
    const keepsCard = product.recurringInterval !== null && price.amountType !== 'free';
    const paymentNeeded = prepared.totalAmount > 0 || keepsCard;
    requirements(prepared, productWire, token, paymentNeeded);
    // Checked before the charge, so nobody pays for a customer who is gone (fulfilCheckout checks again, for a race).
    if (prepared.customerId && !(await customersRepository(db).findById(prepared.customerId))) throw customerDeleted();

    const confirmed: Checkout = { ...prepared, status: 'confirmed' };
    // Built before the race's transaction (on SQLite the one connection is held from its start): the event shows the
    // discount as it was before this redemption.
    const event = await checkoutUpdatedEvent(db, confirmed, urls, now);
    // The race is written without reading its answers (a write-only transaction: on SQLite one call): the checkout's move
    // and the redemption are guarded, so a confirmation that lost, or a discount used up meanwhile, fails the
    // transaction. The checkout's guard runs first, so a lost race says so even if the discount is gone too.
    await transaction(
      db,
      (on) => [
        checkoutsRepository(on).deferGuardedSave(confirmed, 'open'),
        ...deferEvents(on, [event]).writes,
        confirmed.discountId ? deferRedemption(on, confirmed.discountId, now) : null,
      ],
      { writeOnly: true },
    ).catch((error: unknown) => {
      if (isGuardFailure(error, 'checkouts', 'status')) throw notOpen();
      if (isRedemptionRefused(error))
        throw fieldError(['body', 'discount_code'], 'This discount is no longer available.');
      throw error;
    });

    let charge: ChargeResult | null = null;
    if (paymentNeeded) {
      try {
        charge = await processor.chargeToken(token!, {
          amount: confirmed.totalAmount,
          currency: confirmed.currency,
          reference: confirmed.id,
          saveMethod: keepsCard,
        });
      } catch (error) {
        await reopen(confirmed, null, 'The payment processor could not be reached.', urls);
        throw error;
      }
    }
    if (charge?.status === 'failed') {
      await reopen(confirmed, charge, charge.declineMessage, urls);
      throw new DomainError(400, 'PaymentError', charge.declineMessage);
    }

    const at = clock.now();
    // The discount as the fulfilment sees it (after this redemption), for everything it renders.
    const fulfilUrls: CheckoutUrls = { ...urls, discounts: new Map() };
    const fulfilment = await (async () => {
      // Read before the fulfilment's transaction, like the invoice number on PostgreSQL, so it is not read while the
      // transaction holds the connection.
      if (confirmed.discountId) await discountOf(db, confirmed.discountId, fulfilUrls);
      const takeInvoiceNumber = (on: Db) => allocateInvoiceNumber(on, confirmed.organizationId, urls.readCache);
      const invoiceNumber = dialect(db) === 'postgres' ? await takeInvoiceNumber(db) : takeInvoiceNumber;
      return transaction(db, (trx) =>
        fulfilCheckout(trx, {
          checkout: confirmed,
          product,
          price,
          productWire,
          invoiceNumber,
          processor: processor.name,
          charge,
          at,
          urls: fulfilUrls,
        }),
      );
    })().catch(async (error: unknown) => {
      // Money moved but nothing could be recorded: give it back and fail the checkout, so no charge is left
      // without an order. The failure is the caller's error (a 500 unless it is a DomainError).
      await failAfterCharge(confirmed, charge, error, urls);
      throw error;
    });
    return fulfilFinished(db, fulfilment.checkout, fulfilment.customerSessionToken, fulfilUrls);
  };

  /** A checkout that did not go through hands its discount's redemption back. */
  async function releaseDiscount(trx: Db, confirmed: Checkout): Promise<void> {
    if (!confirmed.discountId) return;
    await trx('discounts')
      .where({ id: confirmed.discountId })
      .where('redemptions_count', '>', 0)
      .decrement('redemptions_count', 1);
  }

  async function recordCharge(trx: Db, confirmed: Checkout, charge: ChargeResult, at: Date): Promise<void> {
    await recordChargeAttempt(trx, {
      organizationId: confirmed.organizationId,
      processor: processor.name,
      amount: confirmed.totalAmount,
      currency: confirmed.currency,
      checkoutId: confirmed.id,
      result: charge,
      at,
    });
  }

  async function failAfterCharge(
    confirmed: Checkout,
    charge: ChargeResult | null,
    cause: unknown,
    urls: CheckoutUrls,
  ): Promise<void> {
    const at = clock.now();
    const refund =
      charge?.status === 'succeeded'
        ? await processor.refund(charge.processorReference, {
            amount: confirmed.totalAmount,
            currency: confirmed.currency,
            reference: `${confirmed.id}:void`,
          })
        : null;
    await transaction(db, async (trx) => {
      const failed: Checkout = {
        ...confirmed,
        status: 'failed',
        failureReason: cause instanceof Error ? cause.message.slice(0, 500) : 'fulfilment failed',
        modifiedAt: at,
      };
      await saveCheckout(trx, failed, 'confirmed', urls, at, { previous: confirmed });
      await releaseDiscount(trx, confirmed);
      if (charge) await recordCharge(trx, confirmed, charge, at);
      if (refund && charge) {
        await recordRefundAttempt(trx, {
          organizationId: confirmed.organizationId,
          processor: processor.name,
          amount: confirmed.totalAmount,
          currency: confirmed.currency,
          orderId: null,
          checkoutId: confirmed.id,
          refundId: null,
          customerId: null,
          result: refund,
          at,
        });
      }
    });
  }

  /** A declined or failed charge: the checkout opens again for another card and the discount is handed back. */
  async function reopen(
    confirmed: Checkout,
    charge: ChargeResult | null,
    reason: string,
    urls: CheckoutUrls,
  ): Promise<void> {
    const at = clock.now();
    await transaction(db, async (trx) => {
      const reopened: Checkout = { ...confirmed, status: 'open', failureReason: reason, modifiedAt: at };
      await saveCheckout(trx, reopened, 'confirmed', urls, at, { previous: confirmed });
      await releaseDiscount(trx, confirmed);
      if (charge) await recordCharge(trx, confirmed, charge, at);
    });
  }
}

export type CheckoutConfirmation = ReturnType<typeof createCheckoutConfirmation>;
