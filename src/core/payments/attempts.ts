import { uuidv7 } from '../kernel/ids.js';
import type { Db, Deferred } from '../database/index.js';
import type { ChargeResult, RefundResult } from './processor.js';

/**
 * The audit trail of money: every charge and refund attempt, failed ones included, with the processor's reference,
 * written in the same transaction as what the attempt changed.
 */
export async function recordChargeAttempt(trx: Db, attempt: ChargeAttempt): Promise<void> {
  await deferChargeAttempt(trx, attempt);
}

interface ChargeAttempt {
  organizationId: string;
  processor: string;
  amount: number;
  currency: string;
  checkoutId?: string | null;
  orderId?: string | null;
  customerId?: string | null;
  result: ChargeResult;
  at: Date;
}

/** recordChargeAttempt's INSERT, not run yet, for a transaction's last writes (see finishWith). */
export function deferChargeAttempt(trx: Db, attempt: ChargeAttempt): Deferred {
  return trx('payment_attempts').insert(chargeAttemptRow(attempt));
}

/** Many attempts (a batch of renewal charges) in multi-row INSERTs of 100 rows (SQLite's compound SELECT limit). */
export function deferChargeAttempts(trx: Db, attempts: readonly ChargeAttempt[]): Deferred[] {
  const rows = attempts.map(chargeAttemptRow);
  const writes: Deferred[] = [];
  for (let start = 0; start < rows.length; start += 100)
    writes.push(trx('payment_attempts').insert(rows.slice(start, start + 100)));
  return writes;
}

function chargeAttemptRow(attempt: ChargeAttempt): Record<string, unknown> {
  const { result } = attempt;
  return {
    id: uuidv7(attempt.at.getTime()),
    organization_id: attempt.organizationId,
    kind: 'charge',
    processor: attempt.processor,
    processor_reference: result.processorReference,
    status: result.status,
    amount: attempt.amount,
    currency: attempt.currency,
    checkout_id: attempt.checkoutId ?? null,
    order_id: attempt.orderId ?? null,
    refund_id: null,
    customer_id: attempt.customerId ?? null,
    card_brand: result.card?.brand ?? null,
    card_last4: result.card?.last4 ?? null,
    decline_reason: result.status === 'failed' ? result.declineReason : null,
    decline_message: result.status === 'failed' ? result.declineMessage : null,
    created_at: attempt.at,
  };
}

export async function recordRefundAttempt(
  trx: Db,
  attempt: {
    organizationId: string;
    processor: string;
    amount: number;
    currency: string;
    orderId: string | null;
    checkoutId?: string | null;
    refundId: string | null;
    customerId: string | null;
    result: RefundResult;
    at: Date;
  },
): Promise<void> {
  await trx('payment_attempts').insert({
    id: uuidv7(attempt.at.getTime()),
    organization_id: attempt.organizationId,
    kind: 'refund',
    processor: attempt.processor,
    processor_reference: attempt.result.processorReference,
    status: attempt.result.status,
    amount: attempt.amount,
    currency: attempt.currency,
    checkout_id: attempt.checkoutId ?? null,
    order_id: attempt.orderId,
    refund_id: attempt.refundId,
    customer_id: attempt.customerId,
    card_brand: null,
    card_last4: null,
    decline_reason: attempt.result.status === 'failed' ? attempt.result.failureReason : null,
    decline_message: null,
    created_at: attempt.at,
  });
}
