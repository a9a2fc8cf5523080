import { randomUUID } from 'node:crypto';
import type { Db } from '../database/index.js';
import type { SavedCard } from '../payments/methods.js';
import { subscriptionsRepository } from '../subscriptions/repository.js';
import { paymentMethodsRepository, type PaymentMethod } from './repository.js';

/**
 * Which card bills what. A customer has at most one default method. A checkout's card bills the subscription it
 * bought, and becomes the default only as the customer's first card. When the customer makes a card the default in
 * the portal, every subscription of theirs that may charge again moves onto it, so the card they last chose is the
 * one renewals charge. Callers hold the customer's row lock.
 */

export function newPaymentMethod(input: {
  organizationId: string;
  customerId: string;
  processor: string;
  processorReference: string;
  card: SavedCard;
  isDefault: boolean;
  at: Date;
}): PaymentMethod {
  return {
    id: randomUUID(),
    organizationId: input.organizationId,
    customerId: input.customerId,
    processor: input.processor,
    processorReference: input.processorReference,
    type: 'card',
    brand: input.card.brand,
    last4: input.card.last4,
    expMonth: input.card.expMonth,
    expYear: input.card.expYear,
    isDefault: input.isDefault,
    createdAt: input.at,
    modifiedAt: null,
  };
}

/** Makes a card the customer's default (a new one is inserted as such) and moves their live subscriptions onto it. */
export async function makeDefault(trx: Db, method: PaymentMethod, at: Date, isNew = false): Promise<PaymentMethod> {
  const methods = paymentMethodsRepository(trx);
  const made: PaymentMethod = { ...method, isDefault: true, modifiedAt: isNew ? null : at };
  if (isNew || !method.isDefault) await methods.deferClearDefault(method.customerId, at);
  if (isNew) await methods.deferInsert(made);
  else if (!method.isDefault) await methods.setDefault(method.id, at);
  const subscriptions = subscriptionsRepository(trx);
  await subscriptions.moveBilling(await subscriptions.billingIds({ customer_id: method.customerId }), made);
  return made;
}
