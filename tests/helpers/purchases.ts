import type { TestDaemon } from './daemon.js';
import { TestClient } from './http.js';
import { createCheckout, createProduct } from './catalog.js';
import type { Merchant } from './v1.js';

export function buyerEmail(): string {
  return `buyer-${Math.random().toString(36).slice(2, 10)}@example.com`;
}

/**
 * A paid checkout through the public routes, as a buyer's browser makes it: create, confirm with a test card, and
 * return the order (and subscription) it produced, read through the merchant API.
 */
export async function purchase(
  daemon: TestDaemon,
  merchant: Merchant,
  productId: string,
  fields: Record<string, unknown> = {},
) {
  const checkout = await createCheckout(merchant, [productId], { customer_email: buyerEmail(), ...fields });
  const confirmed = await new TestClient(daemon.url).post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
    customer_billing_address: { country: 'DE' },
    confirmation_token_id: 'tok_visa',
  });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status} ${confirmed.text}`);
  const orders = await merchant.api.get(`/v1/orders/?checkout_id=${checkout.id}`);
  if (orders.status !== 200 || orders.json.items.length !== 1)
    throw new Error(`order lookup failed: ${orders.status} ${orders.text}`);
  const order = orders.json.items[0] as {
    id: string;
    subscription_id: string | null;
    customer_id: string;
    total_amount: number;
    net_amount: number;
    tax_amount: number;
    status: string;
  };
  return {
    checkout,
    order,
    customerId: order.customer_id,
    subscriptionId: order.subscription_id,
    customerSessionToken: confirmed.json.customer_session_token as string,
  };
}

/** A product at `amount` (one-time unless `recurring`), bought once. */
export async function paidOrder(
  daemon: TestDaemon,
  merchant: Merchant,
  amount = 1000,
  recurring: 'month' | 'year' | null = null,
) {
  const product = await createProduct(merchant, {
    recurring_interval: recurring,
    prices: [{ amount_type: 'fixed', price_amount: amount, price_currency: 'usd' }],
  });
  return { product, ...(await purchase(daemon, merchant, product.id)) };
}
