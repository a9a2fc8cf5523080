/**
 * Decline codes (Stripe's names) that no retry can turn into a payment: the card is gone or must not be used again.
 * Dunning skips straight to the end on these (Polar does the same, polar-contract.md §3.3); every other decline, such
 * as `insufficient_funds` or a generic `card_declined`, is worth retrying later.
 */
const NOT_RECOVERABLE = new Set([
  'lost_card',
  'stolen_card',
  'pickup_card',
  'restricted_card',
  'fraudulent',
  'expired_card',
  'invalid_account',
  'payment_method_missing',
]);

export function isRecoverableDecline(reason: string): boolean {
  return !NOT_RECOVERABLE.has(reason);
}
