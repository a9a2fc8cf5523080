import type { ReadCache } from '../cache/read-cache.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductPrice } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import { customerMeterId } from './totals-upsert.js';
import { meteredPrices, periodUsage, type PeriodUsage } from './period-usage.js';
import { meterWire } from './wire.js';
import type { MeterWire } from './schemas.js';

export interface MeteredSubscriptionRef {
  id: string;
  customerId: string;
  productId: string;
  currency: string;
  createdAt: Date;
}

export interface SubscriptionUsage {
  prices: ProductPrice[];
  usage: PeriodUsage[];
}

/**
 * The period so far of each subscription's metered prices (what its `meters` show, and what its next bill charges
 * if nothing more is used), from the running aggregates. One read of the products' prices for the whole list; only
 * subscriptions with metered prices read their customer's meters.
 */
export async function subscriptionUsage(
  db: Db,
  subscriptions: readonly MeteredSubscriptionRef[],
  readCache?: ReadCache | null,
): Promise<Map<string, SubscriptionUsage>> {
  const result = new Map<string, SubscriptionUsage>();
  if (subscriptions.length === 0) return result;
  const prices = await productsRepository(db, readCache).pricesOf([...new Set(subscriptions.map((s) => s.productId))]);
  const metered = subscriptions
    .map((subscription) => ({
      subscription,
      prices: meteredPrices(prices.get(subscription.productId) ?? [], subscription.currency),
    }))
    .filter((entry) => entry.prices.length > 0);
  if (metered.length === 0) return result;
  const customers = new Map(
    (await customersRepository(db).findAnyByIds(metered.map((entry) => entry.subscription.customerId))).map((c) => [
      c.id,
      c,
    ]),
  );
  for (const entry of metered) {
    const customer = customers.get(entry.subscription.customerId);
    if (!customer) continue;
    result.set(entry.subscription.id, { prices: entry.prices, usage: await periodUsage(db, customer, entry.prices) });
  }
  return result;
}

/** CustomerStateSubscriptionMeter; SubscriptionMeter adds the meter. One per metered price, stable ids. */
export function subscriptionMeterWire(subscription: MeteredSubscriptionRef, line: PeriodUsage) {
  return {
    created_at: iso(line.createdAt ?? subscription.createdAt),
    modified_at: isoOrNull(line.modifiedAt),
    id: customerMeterId(line.meter.id, `s:${subscription.id}:${line.price.id}`),
    consumed_units: line.consumed,
    credited_units: line.credited,
    amount: line.amount,
    meter_id: line.meter.id,
  };
}

export function subscriptionMeterWithMeter(
  subscription: MeteredSubscriptionRef,
  line: PeriodUsage,
): ReturnType<typeof subscriptionMeterWire> & { meter: MeterWire } {
  return { ...subscriptionMeterWire(subscription, line), meter: meterWire(line.meter) };
}
