import type { Db } from '../database/index.js';
import type { Checkout } from './repository.js';
import type { CheckoutPublicWire } from './schemas.js';
import type { CheckoutUrls } from './loaders.js';
import { loadCheckoutPublicWire } from './loaders.js';

/**
 * The confirm answer: the buyer's view plus a customer session token for the portal (Polar's CheckoutPublicConfirmed).
 * Its status is always `confirmed`, the one value SDK 0.47 accepts there (Polar settles the payment afterwards); the
 * checkout itself is already `succeeded`, as every later read shows.
 */
export async function fulfilFinished(
  db: Db,
  checkout: Checkout,
  customerSessionToken: string,
  urls: CheckoutUrls,
): Promise<CheckoutPublicWire & { customer_session_token: string }> {
  return {
    ...(await loadCheckoutPublicWire(db, checkout, urls)),
    status: 'confirmed',
    customer_session_token: customerSessionToken,
  };
}
