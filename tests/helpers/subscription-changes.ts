import { transaction } from '../../src/core/database/index.js';
import { prorationEntriesRepository } from '../../src/core/subscriptions/changes-repository.js';
import type { CycleHook } from '../../src/core/subscriptions/cycle-hooks.js';
import { periodEnd, type Interval } from '../../src/core/subscriptions/periods.js';
import { findPrice } from '../../src/core/products/read.js';
import { subscriptionsRepository } from '../../src/core/subscriptions/repository.js';
import {
  pauseCycleHook,
  pendingUpdateCycleHook,
  prorationCycleHook,
} from '../../src/core/subscription-changes/hooks.js';
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

/** The hooks in the order the cycle must run them (subscription-changes/hooks.ts). */
export function cycleHooks(daemon: TestDaemon): CycleHook[] {
  const options = { baseUrl: daemon.url, readCache: daemon.core.readCache };
  return [pauseCycleHook(options), pendingUpdateCycleHook(daemon.core.readCache), prorationCycleHook];
}

const carried = new Map<string, number>();

/** The credit the simulated cycle carries to the next one (its order could not go below 0). */
export function carriedCredit(id: string): number {
  return carried.get(id) ?? 0;
}

/**
 * What the renewal cycle (renewals/cycle.ts) does at the period end, as far as these hooks are concerned: in one
 * transaction on the locked subscription, run the hooks in order; unless one stopped it, bill the plan's price plus
 * every hook's items minus a credit carried from before (never below 0, the rest carried on), and move to the next
 * period, counted from the period anchor. Returns that order's total and the hooks' items, or null when stopped.
 */
export async function simulateCycle(daemon: TestDaemon, id: string): Promise<{ total: number; items: number } | null> {
  const at = daemon.clock.now();
  return transaction(daemon.core.db, async (trx) => {
    const repo = subscriptionsRepository(trx);
    let subscription = (await repo.lock(id))!;
    let items = 0;
    for (const hook of cycleHooks(daemon)) {
      const result = await hook(trx, subscription, at);
      if (result.stop) return null;
      items += (result.items ?? []).reduce((sum, item) => sum + item.amount, 0);
      subscription = (await repo.findById(id))!;
    }
    const price = (await findPrice(trx, subscription.productPriceId, daemon.core.readCache))!.price;
    const sum = (price.priceAmount ?? 0) + items - carriedCredit(id);
    carried.set(id, Math.max(0, -sum));
    const anchor = subscription.periodAnchor ?? subscription.trialEnd ?? subscription.startedAt!;
    const interval = subscription.recurringInterval as Interval;
    const billed = subscription.billedPeriods + 1;
    await repo.save({
      ...subscription,
      currentPeriodStart: subscription.currentPeriodEnd,
      currentPeriodEnd: periodEnd(anchor, interval, subscription.recurringIntervalCount, billed),
      billedPeriods: billed,
      modifiedAt: at,
    });
    return { total: Math.max(0, sum), items };
  });
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
