import type { Clock } from '../kernel/clock.js';
import type { CrashHook } from '../kernel/crash.js';
import type { Db } from '../database/index.js';
import { dialect, isGuardFailure, transaction } from '../database/index.js';
import { recordChargeAttempt, recordRefundAttempt } from '../payments/attempts.js';
import type { ChargeResult, PaymentProcessor, RefundResult } from '../payments/processor.js';
import type { PaymentMethodVault } from '../payments/methods.js';
import type { Product, ProductPrice } from '../products/read.js';
import type { ProductWire } from '../products/schemas.js';
import { checkoutsRepository, type Checkout } from './repository.js';
import { notOpen, saveCheckout } from './service.js';
import { allocateInvoiceNumber, fulfilCheckout, type Fulfilment } from './fulfil.js';
import { discountOf, type CheckoutUrls } from './loaders.js';

/** The charge's idempotency key: one per confirmation that reached the charge, derived from the row alone. */
export function chargeReference(checkout: Checkout): string {
  return `${checkout.id}:${checkout.chargeAttempts}`;
}

/** The key of the refund that gives a charge back when its order could not be written. */
export function voidReference(checkout: Checkout): string {
  return `${chargeReference(checkout)}:void`;
}

export interface Purchase {
  product: Product;
  price: ProductPrice;
  productWire: ProductWire;
}

/**
 * How a `confirmed` checkout ends, whoever ends it: the request that confirmed it, or the reconciler after that
 * request died. Each way out moves the checkout out of `confirmed` under a status guard, so only one of them applies.
 */
export function createCheckoutSettlement(deps: {
  db: Db;
  clock: Clock;
  processor: PaymentProcessor;
  vault: PaymentMethodVault;
  crashAt: CrashHook;
}) {
  const { db, clock, processor, vault, crashAt } = deps;

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

  /**
   * Writes the order and everything with it. When that fails after money moved, the money goes back and the checkout
   * fails (failAfterCharge), so no charge is left without an order; the error is then the caller's.
   */
  async function fulfil(
    confirmed: Checkout,
    charge: ChargeResult | null,
    purchase: Purchase,
    urls: CheckoutUrls,
  ): Promise<Fulfilment & { urls: CheckoutUrls }> {
    const at = clock.now();
    // The discount as the fulfilment sees it (after this redemption), for everything it renders.
    const fulfilUrls: CheckoutUrls = { ...urls, discounts: new Map() };
    try {
      // The card the charge kept, as the customer's saved method will show it: asked of the processor here, outside
      // any transaction. A processor that cannot describe it leaves the subscription without a saved method.
      const kept = charge?.status === 'succeeded' ? charge.savedMethodReference : null;
      const keptCard = kept ? await vault.retrieve(kept) : null;
      const savedMethod = kept && keptCard ? { processorReference: kept, card: keptCard } : null;
      // Read before the fulfilment's transaction, like the invoice number on PostgreSQL, so it is not read while the
      // transaction holds the connection.
      if (confirmed.discountId) await discountOf(db, confirmed.discountId, fulfilUrls);
      const takeInvoiceNumber = (on: Db) => allocateInvoiceNumber(on, confirmed.organizationId, urls.readCache);
      const invoiceNumber = dialect(db) === 'postgres' ? await takeInvoiceNumber(db) : takeInvoiceNumber;
      const fulfilment = await transaction(db, (trx) =>
        fulfilCheckout(trx, {
          checkout: confirmed,
          ...purchase,
          invoiceNumber,
          processor: processor.name,
          charge,
          savedMethod,
          at,
          urls: fulfilUrls,
        }),
      );
      return { ...fulfilment, urls: fulfilUrls };
    } catch (error) {
      // Someone else settled it meanwhile (the guard in fulfilCheckout): this late attempt is the one refused.
      const settledElsewhere = isGuardFailure(error, 'checkouts', 'status');
      if (!(await failAfterCharge(confirmed, charge, error, urls)) || settledElsewhere) throw notOpen();
      throw error;
    }
  }

  /**
   * Money moved but the order could not be written: the charge is refunded and the checkout fails. If someone else
   * settled the checkout meanwhile (a reconciler that took over a request slower than the lease), a checkout that
   * succeeded keeps its charge (and false is returned); one that was reopened still gets this charge back, and is
   * left as it is.
   */
  async function failAfterCharge(
    confirmed: Checkout,
    charge: ChargeResult | null,
    cause: unknown,
    urls: CheckoutUrls,
  ): Promise<boolean> {
    const current = await checkoutsRepository(db).findById(confirmed.id);
    if (current?.status === 'succeeded') return false;
    const refund =
      charge?.status === 'succeeded'
        ? await processor.refund(charge.processorReference, {
            amount: confirmed.totalAmount,
            currency: confirmed.currency,
            reference: voidReference(confirmed),
          })
        : null;
    crashAt('checkout.voided');
    await markFailed(confirmed, charge, refund, cause instanceof Error ? cause.message : 'fulfilment failed', urls);
    return true;
  }

  /** Writes a failed checkout with its charge and the refund that gave it back; the discount's use goes back. */
  async function markFailed(
    confirmed: Checkout,
    charge: ChargeResult | null,
    refund: RefundResult | null,
    reason: string,
    urls: CheckoutUrls,
  ): Promise<void> {
    const at = clock.now();
    await transaction(db, async (trx) => {
      const failed: Checkout = { ...confirmed, status: 'failed', failureReason: reason.slice(0, 500), modifiedAt: at };
      if (await saveCheckout(trx, failed, 'confirmed', urls, at, { previous: confirmed }))
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

  /** A declined, failed or never-made charge: the checkout opens again for another card and the discount goes back. */
  async function reopen(
    confirmed: Checkout,
    charge: ChargeResult | null,
    reason: string,
    urls: CheckoutUrls,
  ): Promise<void> {
    const at = clock.now();
    await transaction(db, async (trx) => {
      const reopened: Checkout = { ...confirmed, status: 'open', failureReason: reason, modifiedAt: at };
      // Whoever moved it first also wrote the discount and the charge; the other writes nothing.
      if (!(await saveCheckout(trx, reopened, 'confirmed', urls, at, { previous: confirmed }))) return;
      await releaseDiscount(trx, confirmed);
      if (charge) await recordCharge(trx, confirmed, charge, at);
    });
  }

  return { fulfil, failAfterCharge, markFailed, reopen };
}

export type CheckoutSettlement = ReturnType<typeof createCheckoutSettlement>;
