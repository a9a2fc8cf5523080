import { ManualClock } from '../../src/core/kernel/clock.js';
import { createCheckout } from './catalog.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { TestClient } from './http.js';
import { buyerEmail } from './purchases.js';
import type { Merchant } from './v1.js';
import { WEBHOOK_TEST_CONFIG } from './webhooks.js';

/** A daemon whose (manual) clock starts at `start`, for renewals to run on. */
export function startRenewalDaemon(start: Date): Promise<TestDaemon> {
  return startTestDaemon({ ...WEBHOOK_TEST_CONFIG }, { clock: new ManualClock(start) });
}

export async function createPlan(
  merchant: Merchant,
  fields: { interval: 'day' | 'week' | 'month' | 'year'; count?: number; amount?: number } & Record<string, unknown>,
) {
  const { interval, count, amount, ...rest } = fields;
  const response = await merchant.api.post('/v1/products/', {
    name: `Plan every ${count ?? 1} ${interval}`,
    recurring_interval: interval,
    recurring_interval_count: count ?? 1,
    prices: [{ amount_type: 'fixed', price_amount: amount ?? 1000, price_currency: 'usd' }],
    ...rest,
  });
  if (response.status !== 201) throw new Error(`product create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; name: string };
}

/** A subscription bought through the public checkout routes with a sandbox card token. */
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
  const order = orders.json.items[0] as { id: string; subscription_id: string; customer_id: string };
  return {
    checkout,
    subscriptionId: order.subscription_id,
    customerId: order.customer_id,
    customerSessionToken: confirmed.json.customer_session_token as string,
  };
}

/** Moves the clock to `at` and runs everything due by then (the in-process stand-in for POST /api/admin/clock). */
export async function moveTo(daemon: TestDaemon, at: Date): Promise<void> {
  daemon.clock.set(at);
  await daemon.core.scheduler.drain();
}

export interface OrderRow {
  id: string;
  status: string;
  billing_reason: string;
  total_amount: number;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  created_at: string;
}

/** The subscription's orders, oldest first, and their charge attempts, read from the database. */
export async function ledger(daemon: TestDaemon, subscriptionId: string) {
  const db = daemon.core.db;
  const orders = (await db('orders')
    .where({ subscription_id: subscriptionId })
    .orderBy('created_at', 'asc')
    .orderBy('invoice_number', 'asc')) as OrderRow[];
  const attempts = (await db('payment_attempts')
    .whereIn(
      'order_id',
      orders.map((order) => order.id),
    )
    .where({ kind: 'charge' })
    .orderBy('created_at', 'asc')) as Array<{ order_id: string; status: string; decline_reason: string | null }>;
  return { orders, attempts };
}
