import { randomAlphanumeric } from '../kernel/ids.js';
import type { CardDetails, ChargeRequest, ChargeResult, PaymentProcessor, RefundResult } from './processor.js';
import { memorySandboxRecords, type SandboxRecords } from './sandbox-repository.js';

/**
 * The built-in `sandbox` processor: no money moves, and the outcome is chosen by the test card, named with Stripe's
 * test token names so code written against Stripe's test mode reads the same here.
 */
export interface TestCard {
  token: string;
  number: string;
  brand: string;
  /** The expiry a saved method reports (Stripe's test cards take any future date; these are fixed so tests can see them). */
  expMonth: number;
  expYear: number;
  /** What happens when the card is charged with the buyer present. */
  onSession: 'succeeds' | { reason: string; message: string };
  /** What happens to later charges of the kept card (renewals). */
  offSession: 'succeeds' | { reason: string; message: string };
}

const DECLINED = { reason: 'card_declined', message: 'Your card was declined.' };
const INSUFFICIENT = { reason: 'insufficient_funds', message: 'Your card has insufficient funds.' };
// Not recoverable (payments/declines.ts): retrying a card reported lost can never succeed.
const LOST_CARD = { reason: 'lost_card', message: 'Your card was declined: it has been reported lost.' };
const EXPIRY = { expMonth: 12, expYear: 2034 };

export const TEST_CARDS: readonly TestCard[] = [
  {
    token: 'tok_visa',
    number: '4242424242424242',
    brand: 'visa',
    ...EXPIRY,
    onSession: 'succeeds',
    offSession: 'succeeds',
  },
  {
    token: 'tok_mastercard',
    number: '5555555555554444',
    brand: 'mastercard',
    ...EXPIRY,
    onSession: 'succeeds',
    offSession: 'succeeds',
  },
  {
    token: 'tok_chargeDeclined',
    number: '4000000000000002',
    brand: 'visa',
    ...EXPIRY,
    onSession: DECLINED,
    offSession: DECLINED,
  },
  {
    token: 'tok_chargeDeclinedInsufficientFunds',
    number: '4000000000009995',
    brand: 'visa',
    ...EXPIRY,
    onSession: INSUFFICIENT,
    offSession: INSUFFICIENT,
  },
  {
    token: 'tok_chargeDeclinedLostCard',
    number: '4000000000009987',
    brand: 'visa',
    ...EXPIRY,
    onSession: LOST_CARD,
    offSession: LOST_CARD,
  },
  // Stripe's 4000 0000 0000 0341: attaching succeeds, charging the kept card later fails. Here the first charge at
  // checkout succeeds and every renewal is declined, which is what dunning tests need.
  {
    token: 'tok_chargeCustomerFail',
    number: '4000000000000341',
    brand: 'visa',
    ...EXPIRY,
    onSession: 'succeeds',
    offSession: DECLINED,
  },
];

export function testCardByToken(token: string): TestCard | undefined {
  return TEST_CARDS.find((card) => card.token === token);
}

export function testCardByNumber(number: string): TestCard | undefined {
  const digits = number.replace(/[\s-]/g, '');
  return TEST_CARDS.find((card) => card.number === digits);
}

const SAVED_PREFIX = 'sandbox_pm_';

/**
 * `records` is the processor's own memory of what it did under each idempotency key (sandbox-repository.ts): the
 * daemon passes one kept in its database, so it outlives a crash; without one it lives as long as the object.
 */
export function createSandboxProcessor(records: SandboxRecords = memorySandboxRecords()): PaymentProcessor {
  function keepCharge(request: { amount: number; currency: string; reference: string }, result: ChargeResult) {
    return records.keep({ kind: 'charge', ...pick(request), status: result.status, result });
  }

  function outcome(
    card: TestCard,
    behaviour: TestCard['onSession'],
    savedMethodReference: string | null,
  ): ChargeResult {
    const details: CardDetails = { brand: card.brand, last4: card.number.slice(-4) };
    const processorReference = `sandbox_ch_${randomAlphanumeric(24)}`;
    if (behaviour === 'succeeds')
      return { status: 'succeeded', processorReference, card: details, savedMethodReference };
    return {
      status: 'failed',
      processorReference,
      card: details,
      declineReason: behaviour.reason,
      declineMessage: behaviour.message,
    };
  }

  /** No test card behind the token or saved method: the charge fails before any card is looked at. */
  function failedWithoutCard(declineReason: string, declineMessage: string): ChargeResult {
    return {
      status: 'failed',
      processorReference: `sandbox_ch_${randomAlphanumeric(24)}`,
      card: null,
      declineReason,
      declineMessage,
    };
  }

  return {
    name: 'sandbox',
    async chargeToken(token: string, request: ChargeRequest): Promise<ChargeResult> {
      const card = testCardByToken(token);
      if (!card) {
        return keepCharge(request, failedWithoutCard('invalid_token', `Unknown test card token "${token}".`));
      }
      // The kept method carries the card's token, so later charges know how this test card behaves.
      return keepCharge(
        request,
        outcome(
          card,
          card.onSession,
          request.saveMethod ? `${SAVED_PREFIX}${card.token}_${randomAlphanumeric(16)}` : null,
        ),
      );
    },
    async chargeSavedMethod(methodReference: string, request): Promise<ChargeResult> {
      const token = methodReference.startsWith(SAVED_PREFIX)
        ? methodReference.slice(SAVED_PREFIX.length).replace(/_[A-Za-z0-9]{16}$/, '')
        : '';
      const card = testCardByToken(token);
      if (!card) {
        return keepCharge(request, failedWithoutCard('payment_method_missing', 'The saved payment method is unknown.'));
      }
      return keepCharge(request, outcome(card, card.offSession, methodReference));
    },
    async refund(paymentReference, request): Promise<RefundResult> {
      const result: RefundResult = paymentReference.startsWith('sandbox_ch_')
        ? { status: 'succeeded', processorReference: `sandbox_re_${randomAlphanumeric(24)}` }
        : {
            status: 'failed',
            processorReference: `sandbox_re_${randomAlphanumeric(24)}`,
            failureReason: 'charge_not_found',
          };
      return records.keep({ kind: 'refund', ...pick(request), status: result.status, result });
    },
    findCharge: (reference) => records.find<ChargeResult>('charge', reference),
    findRefund: (reference) => records.find<RefundResult>('refund', reference),
  };
}

function pick(request: { amount: number; currency: string; reference: string }) {
  return { amount: request.amount, currency: request.currency, reference: request.reference };
}
