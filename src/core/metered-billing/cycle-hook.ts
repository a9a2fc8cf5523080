import type { ReadCache } from '../cache/read-cache.js';
import type { CycleHook } from '../subscriptions/cycle-hooks.js';
import type { CycleHookProbe } from '../subscriptions/cycle-probes.js';
import { meteredPrices } from '../meters/period-usage.js';
import { productsRepository } from '../products/repository.js';
import { billUsage } from './usage.js';

/**
 * The cycle hook that adds a line per metered price to the cycle order (the period's usage, less credits, capped)
 * and resets the meters. It bills the plan the period was used under: the hooks get the row as it was before a
 * pending plan change switched it.
 */
export function meteredCycleHook(readCache: ReadCache | null | undefined): CycleHook {
  return async (trx, subscription, at) => {
    const usage = await billUsage(trx, subscription, at, readCache);
    return {
      items: usage.map((line) => ({ label: line.label, amount: line.amount, productPriceId: line.price.id })),
    };
  };
}

/**
 * meteredCycleHook's probe for a batch of renewals: the subscriptions whose product has a metered price in their
 * currency, from one (cached) read of the products' prices, so plain renewals skip the hook and its meter lock.
 */
export function meteredProbe(readCache: ReadCache | null | undefined): CycleHookProbe {
  return async (db, subscriptions) => {
    const prices = await productsRepository(db, readCache).pricesOf([
      ...new Set(subscriptions.map((s) => s.productId)),
    ]);
    return new Set(
      subscriptions.filter((s) => meteredPrices(prices.get(s.productId) ?? [], s.currency).length > 0).map((s) => s.id),
    );
  };
}
