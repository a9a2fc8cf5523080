import type { ReadCache } from '../cache/read-cache.js';
import type { Db } from '../database/index.js';
import { normalizeEmail } from '../kernel/email.js';
import { DomainError } from '../kernel/errors.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { Checkout } from './repository.js';
import { trialRedemptionsRepository } from './trial-redemptions-repository.js';

/**
 * Polar's trial abuse rule (`prevent_trial_abuse` in the organization's subscription settings): a person (normalized
 * e-mail) who already had a trial of this product is refused another, with Polar's 403 TrialAlreadyRedeemed, before
 * anything is charged. The buyer may confirm again with `allow_trial: false` to subscribe without one.
 */
export async function refuseTrialAbuse(db: Db, checkout: Checkout, readCache: ReadCache | null | undefined) {
  if (!checkout.customerEmail) return;
  const organization = await organizationsRepository(db, readCache).findMerchantView(checkout.organizationId);
  if (organization?.subscriptionSettings.prevent_trial_abuse !== true) return;
  const taken = await trialRedemptionsRepository(db).exists(
    checkout.organizationId,
    checkout.productId,
    normalizeEmail(checkout.customerEmail),
  );
  if (taken)
    throw new DomainError(
      403,
      'TrialAlreadyRedeemed',
      'You have already used a trial for this product. Trials can only be used once per customer.',
    );
}
