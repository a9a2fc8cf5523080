import type { Db } from '../kernel/db.js';
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
 * Counts one redemption of a discount if it is redeemable at `at`, and says whether it was. One conditional UPDATE
 * does check and increment together: PostgreSQL re-evaluates the condition after waiting on a concurrent
 * redemption's row lock, and SQLite runs one writer at a time, so N concurrent calls can never push
 * `redemptions_count` past `max_redemptions`. Call it inside the transaction that records what the discount was
 * used for, so a rollback also returns the redemption.
 */
export async function redeem(trx: Db, discountId: string, at: Date): Promise<boolean> {
  const updated = await trx('discounts')
    .where({ id: discountId })
    .whereNull('deleted_at')
    .where((where) => where.whereNull('max_redemptions').orWhereRaw('redemptions_count < max_redemptions'))
    .where((where) => where.whereNull('starts_at').orWhere('starts_at', '<=', at))
    .where((where) => where.whereNull('ends_at').orWhere('ends_at', '>=', at))
    .increment('redemptions_count', 1);
  return Number(updated) === 1;
}
