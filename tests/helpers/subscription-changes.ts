import { prorationEntriesRepository } from '../../src/core/subscriptions/changes-repository.js';
import { createCheckout, createProduct } from './catalog.js';
import type { TestDaemon } from './daemon.js';
import { TestClient } from './http.js';
import { buyerEmail } from './purchases.js';
import type { Merchant } from './v1.js';

/** A recurring product with one fixed USD price. */
export async function plan(merchant: Merchant, name: string, amount: number, interval: 'month' | 'year' = 'month') {
  return createProduct(merchant, {
    name,
    recurring_interval: interval,
    prices: [{ amount_type: 'fixed', price_amount: amount, price_currency: 'usd' }],
  });
}

/** A subscription bought through the checkout with a sandbox card (its kept card bills later charges). */
export async function subscribe(
  daemon: TestDaemon,
  merchant: Merchant,
  productId: string,
  token = 'tok_visa',
  fields: Record<string, unknown> = {},
) {
  const checkout = await createCheckout(merchant, [productId], { customer_email: buyerEmail(), ...fields });
  const confirmed = await new TestClient(daemon.url).post(`/v1/checkouts/client/${checkout.client_secret}/confirm`, {
    customer_billing_address: { country: 'DE' },
    confirmation_token_id: token,
  });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status} ${confirmed.text}`);
  const orders = await merchant.api.get(`/v1/orders/?checkout_id=${checkout.id}`);
  const order = orders.json.items[0];
  return {
    id: order.subscription_id as string,
    customerId: order.customer_id as string,
    paid: order.total_amount as number,
    customerSessionToken: confirmed.json.customer_session_token as string,
  };
}

export function patch(client: TestClient, path: string, body: unknown) {
  return client.call('PATCH', path, { body });
}

/** The credit the cycle carries to the next cycle order (its order could not go below 0). */
export async function carriedCredit(daemon: TestDaemon, id: string): Promise<number> {
  const row = await daemon.core.db('subscriptions').where({ id }).first('carried_credit');
  return Number(row?.carried_credit ?? 0);
}

/**
 * The renewal cycle (renewals/cycle.ts) at the current time of the test clock: runs every due job, then answers the
 * cycle order it wrote (its total and the hooks' proration lines), or null when none was written (a hook stopped it).
 */
export async function simulateCycle(daemon: TestDaemon, id: string): Promise<{ total: number; items: number } | null> {
  const cycleOrders = () =>
    daemon.core.db('orders').where({ subscription_id: id, billing_reason: 'subscription_cycle' }).pluck('id');
  const before = new Set<string>(await cycleOrders());
  await daemon.core.scheduler.drain();
  const fresh = (await cycleOrders()).filter((orderId: string) => !before.has(orderId));
  if (fresh.length === 0) return null;
  if (fresh.length > 1) throw new Error(`one cycle wrote ${fresh.length} orders`);
  const order = await daemon.core.db('orders').where({ id: fresh[0] }).first('total_amount');
  const lines = await daemon.core.db('order_items').where({ order_id: fresh[0], proration: true }).pluck('amount');
  return {
    total: Number(order.total_amount),
    items: lines.reduce((sum: number, amount: unknown) => sum + Number(amount), 0),
  };
}

/** The proration entries still waiting for an order (a credit carried forward is one). */
export async function unbilledTotal(daemon: TestDaemon, id: string): Promise<number> {
  const entries = await prorationEntriesRepository(daemon.core.db).unbilled(id);
  return entries.reduce((sum, entry) => sum + entry.amount, 0);
}

export async function ordersOf(merchant: Merchant, subscriptionId: string) {
  const response = await merchant.api.get(`/v1/orders/?subscription_id=${subscriptionId}&limit=100`);
  return response.json.items as Array<{
    id: string;
    billing_reason: string;
    net_amount: number;
    tax_amount: number;
    total_amount: number;
    status: string;
    items: Array<{ label: string; amount: number; proration: boolean }>;
  }>;
}
