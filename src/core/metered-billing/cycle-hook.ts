import type { ReadCache } from '../cache/read-cache.js';
import type { CycleHook } from '../subscriptions/cycle-hooks.js';
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
