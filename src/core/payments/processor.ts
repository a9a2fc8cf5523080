/**
 * What Till needs from a payment processor. Checkouts charge a card the buyer just entered (and may keep it for
 * renewals); renewals charge a kept method with nobody present; refunds give money back. Every attempt, failed or
 * not, comes back with the processor's own reference so the payments table can be audited against the processor.
 */

export interface CardDetails {
  brand: string;
  last4: string;
}

export type ChargeResult =
  | { status: 'succeeded'; processorReference: string; card: CardDetails; savedMethodReference: string | null }
  | {
      status: 'failed';
      processorReference: string;
      card: CardDetails | null;
      declineReason: string;
      declineMessage: string;
    };

export type RefundResult =
  | { status: 'succeeded'; processorReference: string }
  | { status: 'failed'; processorReference: string; failureReason: string };

export interface ChargeRequest {
  amount: number;
  currency: string;
  /**
   * The idempotency key, derived from our rows (`<checkout id>:<attempt>`): the same reference never charges twice,
   * and a second request with it gets the first one's result.
   */
  reference: string;
  /** Keep the method for later off-session charges (subscriptions). */
  saveMethod: boolean;
}

export interface PaymentProcessor {
  readonly name: string;
  /** Charges a method the buyer presents now (a confirmation token from the checkout form). */
  chargeToken(token: string, request: ChargeRequest): Promise<ChargeResult>;
  /** Charges a method kept earlier, with the customer absent (renewals). */
  chargeSavedMethod(methodReference: string, request: Omit<ChargeRequest, 'saveMethod'>): Promise<ChargeResult>;
  /**
   * Several off-session charges at once (a batch of renewals), each under its own key, answered in the order given:
   * what chargeSavedMethod answers for each. Optional: without it, the batch charges one by one.
   */
  chargeSavedMethods?(
    charges: ReadonlyArray<{ methodReference: string; request: Omit<ChargeRequest, 'saveMethod'> }>,
  ): Promise<ChargeResult[]>;
  refund(
    paymentReference: string,
    request: { amount: number; currency: string; reference: string },
  ): Promise<RefundResult>;
  /**
   * The processor's own record of the charge made under this idempotency key (ChargeRequest.reference), or null when
   * none was made. The reconciler asks it about checkouts a crash left between the charge and the order.
   */
  findCharge(reference: string): Promise<ChargeResult | null>;
  /** The same for a refund's key: what the processor did, or null when the refund never reached it. */
  findRefund(reference: string): Promise<RefundResult | null>;
}
