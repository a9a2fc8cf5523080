import type { ReadCache } from '../cache/read-cache.js';
import { customersRepository } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { recordSystemEvents, type SystemEvent } from '../events/system.js';
import { countBackfillBeforeReset } from '../meters/backfill-catch-up.js';
import { metersOfPrices, periodUsage, meteredPrices, type PeriodUsage } from '../meters/period-usage.js';
import { metersRepository } from '../meters/repository.js';
import { meterResetsRepository, type MeterCustomer } from '../meters/resets-repository.js';
import { productsRepository } from '../products/repository.js';
import type { Subscription } from '../subscriptions/repository.js';

/** Whole units of credit left over (credited beyond what was consumed): what a rollover carries on. */
export function leftover(consumed: number, credited: number): number {
  return Math.max(0, Math.floor(credited - consumed));
}

/**
 * Resets the customer's meters (Polar's `meter.reset`): their consumed and credited units count again from zero,
 * and the credit left is kept for a rollover. The caller holds the organization's meter lock, so no ingestion
 * lands between the figures it billed and the reset.
 */
export async function resetMeters(
  trx: Db,
  customer: MeterCustomer,
  figures: ReadonlyArray<{ meterId: string; consumed: number; credited: number }>,
  at: Date,
): Promise<void> {
  const resets = meterResetsRepository(trx);
  const events: SystemEvent[] = [];
  for (const { meterId, consumed, credited } of figures) {
    await resets.reset(meterId, customer, at, leftover(consumed, credited));
    events.push({
      organizationId: customer.organizationId,
      customer,
      name: 'meter.reset',
      metadata: { meter_id: meterId },
      at,
    });
  }
  await recordSystemEvents(trx, events);
}

/**
 * Bills a subscription's metered prices for the period that ends now and resets their meters (Polar's cycle):
 * units since the last reset (events counted by their ingestion, or by the meter's backfill: what it has not reached
 * yet for this customer is counted first, as the reset would make it skip them), less credits, through each price. A
 * subscription without metered prices costs one cached read of its product's prices and nothing else.
 */
export async function billUsage(
  trx: Db,
  subscription: Pick<Subscription, 'organizationId' | 'customerId' | 'productId' | 'currency'>,
  at: Date,
  readCache: ReadCache | null | undefined,
): Promise<PeriodUsage[]> {
  const prices = (await productsRepository(trx, readCache).pricesOf([subscription.productId])).get(
    subscription.productId,
  );
  const metered = meteredPrices(prices ?? [], subscription.currency);
  if (metered.length === 0) return [];
  const customer = await customersRepository(trx).findAnyById(subscription.customerId);
  if (!customer) return [];
  await metersRepository(trx).lockOrganization(subscription.organizationId, 'exclusive');
  const meters = await metersOfPrices(trx, metered);
  await countBackfillBeforeReset(trx, customer, meters, at);
  const usage = await periodUsage(trx, customer, metered, meters);
  const byMeter = new Map(usage.map((line) => [line.meter.id, line]));
  await resetMeters(
    trx,
    customer,
    [...byMeter.values()].map((line) => ({ meterId: line.meter.id, consumed: line.consumed, credited: line.credited })),
    at,
  );
  return usage;
}
