import { guarded, isGuardFailure, type Db, type Deferred } from '../database/index.js';
import type { Discount } from './repository.js';

/**
 * Whether a discount can be applied at `at`, as read (Polar: started, not ended, under its limit). Only a hint for
 * showing a discount: redeeming must go through `redeem`, which checks the same rules atomically.
 */
export function isRedeemable(discount: Discount, at: Date): boolean {
  if (discount.deletedAt) return false;
  if (discount.startsAt && discount.startsAt > at) return false;
  if (discount.endsAt && discount.endsAt < at) return false;
  return discount.maxRedemptions === null || discount.redemptionsCount < discount.maxRedemptions;
}

/**
 * Counts one redemption of a discount, as a statement not run yet that fails (`isRedemptionRefused`) unless the
 * discount is redeemable at `at`. One UPDATE does check and increment together: PostgreSQL evaluates the condition
 * on the row as it is after waiting on a concurrent redemption's row lock, and SQLite runs one writer at a time, so N
 * concurrent calls can never push `redemptions_count` past `max_redemptions`. Send it in the transaction that records
 * what the discount was used for, so a rollback also returns the redemption.
 */
export function deferRedemption(trx: Db, discountId: string, at: Date): Deferred {
  const redeemable = [
    'deleted_at IS NULL',
    '(max_redemptions IS NULL OR redemptions_count < max_redemptions)',
    '(starts_at IS NULL OR starts_at <= ?)',
    '(ends_at IS NULL OR ends_at >= ?)',
  ].join(' AND ');
  return trx('discounts')
    .where({ id: discountId })
    .update({ redemptions_count: guarded(trx, redeemable, 'redemptions_count + 1', [at, at]) });
}

/** The failure of a `deferRedemption` whose discount was not redeemable. */
export function isRedemptionRefused(error: unknown): boolean {
  return isGuardFailure(error, 'discounts', 'redemptions_count');
}
