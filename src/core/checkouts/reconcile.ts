import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import type { PaymentProcessor } from '../payments/processor.js';
import { findPrice, productWires } from '../products/read.js';
import type { CheckoutUrls } from './loaders.js';
import { checkoutsRepository, type Checkout } from './repository.js';
import { chargeReference, voidReference, type CheckoutSettlement } from './settlement.js';

/**
 * Finishes checkouts whose confirmation died between winning the race and writing its outcome (a crash, a killed
 * daemon): they stay `confirmed`, with no order and the discount redeemed, and the buyer's retry is refused. Each one
 * left `confirmed` longer than the lease is claimed by one reconciler and settled against the processor's own record
 * of the charge, asked by the idempotency key the confirmation used, as the confirmation would have settled it: an
 * order when the charge went through, the checkout reopened when it was declined or never made.
 */
export function createCheckoutReconciler(deps: {
  db: Db;
  clock: Clock;
  urls: CheckoutUrls;
  processor: PaymentProcessor;
  settlement: CheckoutSettlement;
}) {
  const { db, clock, processor, settlement } = deps;

  async function settle(confirmed: Checkout): Promise<void> {
    const urls: CheckoutUrls = { ...deps.urls, memo: new Map() };
    const found = await findPrice(db, confirmed.productPriceId, urls.readCache);
    // Only when a charge can have been made is the processor asked (see confirm.ts: paymentNeeded).
    const keepsCard = found !== null && found.product.recurringInterval !== null && found.price.amountType !== 'free';
    const paymentNeeded = confirmed.totalAmount > 0 || keepsCard;
    const charge = paymentNeeded ? await processor.findCharge(chargeReference(confirmed)) : null;
    if (paymentNeeded && !charge) {
      await settlement.reopen(confirmed, null, 'The payment was interrupted before the card was charged.', urls);
      return;
    }
    if (charge?.status === 'failed') {
      await settlement.reopen(confirmed, charge, charge.declineMessage, urls);
      return;
    }
    const voided = charge ? await processor.findRefund(voidReference(confirmed)) : null;
    if (charge && voided) {
      // The request had already given the money back (its order could not be written) when it died.
      await settlement.markFailed(confirmed, charge, voided, 'The order could not be written.', urls);
      return;
    }
    if (!found) {
      await settlement.failAfterCharge(confirmed, charge, new Error('The product is gone.'), urls);
      return;
    }
    const [productWire] = await productWires(db, [found.product], urls);
    await settlement.fulfil(confirmed, charge, { ...found, productWire: productWire! }, urls);
  }

  /**
   * Claims and settles up to `limit` checkouts left `confirmed` for longer than `leaseMs`; returns how many were
   * claimed. One that cannot be settled now (the processor unreachable) stays claimed until the lease runs out and
   * is tried again then.
   */
  return async function reconcileCheckouts(
    leaseMs: number,
    limit: number,
    onError: (error: unknown, checkoutId: string) => void,
  ): Promise<number> {
    const now = clock.now();
    const claimed = await checkoutsRepository(db).claimStale(now, new Date(now.getTime() - leaseMs), limit);
    for (const checkout of claimed) await settle(checkout).catch((error: unknown) => onError(error, checkout.id));
    return claimed.length;
  };
}

export type CheckoutReconciler = ReturnType<typeof createCheckoutReconciler>;
