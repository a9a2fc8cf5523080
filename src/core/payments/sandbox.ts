import { randomAlphanumeric } from '../kernel/ids.js';
import type { CardDetails, ChargeRequest, ChargeResult, PaymentProcessor, RefundResult } from './processor.js';
import { memorySandboxRecords, type SandboxRecords } from './sandbox-repository.js';

import { testCardByToken, type TestCard } from './test-cards.js';

// The built-in `sandbox` processor: no money moves, and the outcome is chosen by the test card (test-cards.ts).
export { TEST_CARDS, testCardByNumber, testCardByToken, type TestCard } from './test-cards.js';

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

  /** What charging a kept method does: the test card behind it decides. */
  function savedOutcome(methodReference: string): ChargeResult {
    const token = methodReference.startsWith(SAVED_PREFIX)
      ? methodReference.slice(SAVED_PREFIX.length).replace(/_[A-Za-z0-9]{16}$/, '')
      : '';
    const card = testCardByToken(token);
    if (!card) return failedWithoutCard('payment_method_missing', 'The saved payment method is unknown.');
    return outcome(card, card.offSession, methodReference);
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
      return keepCharge(request, savedOutcome(methodReference));
    },
    async chargeSavedMethods(charges): Promise<ChargeResult[]> {
      return records.keepMany(
        charges.map(({ methodReference, request }) => {
          const result = savedOutcome(methodReference);
          return { kind: 'charge' as const, ...pick(request), status: result.status, result };
        }),
      );
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
