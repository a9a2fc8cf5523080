/**
 * The sandbox processor's test cards, named with Stripe's test token names so code written against Stripe's test
 * mode reads the same here. Plain data, so the CLI (`till checkouts pay --card`) reads the same list as the daemon.
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
