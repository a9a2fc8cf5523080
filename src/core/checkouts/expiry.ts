import type { Db } from '../database/index.js';
import { together } from '../database/index.js';
import { recordEvents, unrecordEvents } from '../kernel/outbox.js';
import type { JobHandler } from '../scheduler/service.js';
import type { JobRequest } from '../scheduler/repository.js';
import type { CheckoutUrls } from './loaders.js';
import { loadCheckoutWire } from './loaders.js';
import type { Checkout } from './repository.js';
import { checkoutsRepository } from './repository.js';

/** The scheduled job that expires an open checkout when its time runs out (scheduled when it is created). */
export const CHECKOUT_EXPIRY_JOB = 'checkout.expire';

export function checkoutExpiryJob(checkout: Checkout): JobRequest {
  return { kind: CHECKOUT_EXPIRY_JOB, subjectId: checkout.id, dueAt: checkout.expiresAt };
}

/**
 * An open checkout whose time ran out becomes `expired`, with `checkout.updated` and then `checkout.expired` (Polar's
 * WebhookCheckoutExpiredPayload carries the Checkout). Only from `open`: answers false when someone moved it first (a
 * confirmation won the race), and then records nothing.
 */
export async function expireCheckout(trx: Db, checkout: Checkout, urls: CheckoutUrls, at: Date): Promise<boolean> {
  const next: Checkout = { ...checkout, status: 'expired', modifiedAt: at };
  const data = await loadCheckoutWire(trx, next, urls);
  const organizationId = checkout.organizationId;
  const [saved, eventIds] = await together(
    checkoutsRepository(trx).save(next, 'open'),
    recordEvents(trx, [
      { organizationId, type: 'checkout.updated', data, at },
      { organizationId, type: 'checkout.expired', data, at },
    ]),
  );
  if (!saved) await unrecordEvents(trx, eventIds);
  return saved;
}

/** The job's handler: nothing to do once the checkout was paid, or was already found expired when read. */
export function checkoutExpiryHandler(urls: CheckoutUrls): JobHandler {
  return async (trx, job, now) => {
    const checkout = await checkoutsRepository(trx).findById(job.subjectId);
    if (!checkout || checkout.status !== 'open' || checkout.expiresAt > now) return;
    await expireCheckout(trx, checkout, urls, now);
  };
}
