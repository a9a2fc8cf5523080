import type { Clock } from '../kernel/clock.js';
import { fieldError, validationError, type FieldIssue } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { transaction, isGuardFailure } from '../database/index.js';
import type { CrashHook } from '../kernel/crash.js';
import { DomainError } from '../kernel/errors.js';
import { deferRedemption, isRedemptionRefused } from '../discounts/redemption.js';
import { deferEvents } from '../kernel/outbox.js';
import { customersRepository } from '../customers/repository.js';
import type { ChargeResult, PaymentProcessor } from '../payments/processor.js';
import type { ProductWire } from '../products/schemas.js';
import { applyCheckoutChangesWithProduct } from './apply.js';
import { billingAddressModes, missingBillingFields } from './billing-address.js';
import { customFieldDataIssues } from './custom-field-data.js';
import { checkoutsRepository, type Checkout } from './repository.js';
import type { CheckoutConfirmInput } from './schemas.js';
import type { CheckoutService } from './service.js';
import { checkoutUpdatedEvent, expired, notOpen } from './service.js';
import { customerDeleted } from './existing-customer.js';
import { fulfilFinished } from './confirm-result.js';
import type { CheckoutUrls } from './loaders.js';
import { chargeReference, type CheckoutSettlement } from './settlement.js';
import { activeTrial } from './trial.js';
import { refuseTrialAbuse } from './trial-abuse.js';

/**
 * Confirming a checkout. The race for it is decided first, in a short transaction that moves it from `open` to
 * `confirmed` (and redeems its discount): of N concurrent confirmations exactly one gets past it, so exactly one
 * charge is made. The charge runs outside any transaction (it may be slow); its outcome is then written in one
 * transaction with everything it causes, or, on a decline, the checkout reopens and the discount is given back
 * (settlement.ts). A confirmation that dies in between is finished by the reconciler (reconcile.ts).
 */
export function createCheckoutConfirmation(deps: {
  db: Db;
  clock: Clock;
  urls: CheckoutUrls;
  processor: PaymentProcessor;
  checkouts: CheckoutService;
  settlement: CheckoutSettlement;
  crashAt: CrashHook;
}) {
  const { db, clock, urls: baseUrls, processor, checkouts, settlement, crashAt } = deps;

  function requirements(
    checkout: Checkout,
    productWire: ProductWire,
    token: string | null | undefined,
    paymentNeeded: boolean,
  ): void {
    const issues: FieldIssue[] = [];
    if (!checkout.customerEmail && !checkout.customerId)
      issues.push({ loc: ['body', 'customer_email'], msg: 'Field required', type: 'missing' });
    issues.push(...missingBillingFields(billingAddressModes(checkout, paymentNeeded), checkout.customerBillingAddress));
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
    const { confirmation_token_id: token, payment_method_type: _m, seats: _s, ...changes } = input;
    const now = clock.now();
    // One request renders the same product many times (checkout, order, subscription, their events): build it once.
    const urls = { ...baseUrls, memo: new Map() };
    const {
      checkout: prepared,
      product,
      price,
      productWire,
    } = await applyCheckoutChangesWithProduct(db, current, changes, now, urls);
    // The buyer was shown the checkout's discount: one used up or ended since then is refused, never charged in full
    // instead (the same answer as losing the race for its last redemption below). A confirm that sends a code was
    // checked against that code.
    if (
      current.discountId !== null &&
      prepared.discountId !== current.discountId &&
      changes.discount_code === undefined
    )
      throw fieldError(['body', 'discount_code'], 'This discount is no longer available.');
    // A recurring paid price keeps the card for renewals even when nothing is due today (a 100 % first-month discount).
    const keepsCard = product.recurringInterval !== null && price.amountType !== 'free';
    // A trial charges nothing today; its card is kept for the bill at the trial's end.
    const trial = activeTrial(prepared, product);
    const paymentNeeded = (!trial && prepared.totalAmount > 0) || keepsCard;
    requirements(prepared, productWire, token, paymentNeeded);
    // Checked before the charge, so nobody pays for a customer who is gone (fulfilCheckout checks again, for a race).
    if (prepared.customerId && !(await customersRepository(db).findById(prepared.customerId))) throw customerDeleted();
    if (trial) await refuseTrialAbuse(db, prepared, urls.readCache);

    // A confirmation that charges takes the next idempotency key (settlement.ts chargeReference): a checkout reopened
    // after a decline is charged anew, not answered with the decline kept under the old key.
    const confirmed: Checkout = {
      ...prepared,
      status: 'confirmed',
      chargeAttempts: prepared.chargeAttempts + (paymentNeeded ? 1 : 0),
      inFlightAt: now,
    };
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

    crashAt('checkout.confirmed');

    let charge: ChargeResult | null = null;
    if (paymentNeeded) {
      try {
        charge = await processor.chargeToken(token!, {
          amount: trial ? 0 : confirmed.totalAmount,
          currency: confirmed.currency,
          reference: chargeReference(confirmed),
          saveMethod: keepsCard,
        });
      } catch (error) {
        await settlement.reopen(confirmed, null, 'The payment processor could not be reached.', urls);
        throw error;
      }
      crashAt('checkout.charged');
    }
    if (charge?.status === 'failed') {
      await settlement.reopen(confirmed, charge, charge.declineMessage, urls);
      throw new DomainError(400, 'PaymentError', charge.declineMessage);
    }

    const fulfilment = await settlement.fulfil(confirmed, charge, { product, price, productWire }, urls);
    return fulfilFinished(db, fulfilment.checkout, fulfilment.customerSessionToken, fulfilment.urls);
  };
}

export type CheckoutConfirmation = ReturnType<typeof createCheckoutConfirmation>;
