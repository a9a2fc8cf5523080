import type { Db } from '../database/index.js';
import { meteredAmount, subtractDecimal } from '../kernel/money.js';
import type { ProductPrice } from '../products/read.js';
import { customerMeterFigures } from './customer-meters.js';
import { metersRepository, type Meter } from './repository.js';
import type { MeterCustomer } from './resets-repository.js';

/**
 * What a subscription's metered prices charge for the period so far (Polar's `_get_metered_line_item`): the
 * customer meter's units since its last reset, less the units credited since then, priced through the unit amount
 * (decimal cents per unit, exact, rounded half away from zero) and capped at `cap_amount`. Read from the running
 * aggregates, so a bill costs the same whatever the number of events.
 */
export interface PeriodUsage {
  price: ProductPrice;
  meter: Meter;
  /** The customer meter's id (null: the customer never used or was credited on the meter). */
  customerMeterId: string | null;
  createdAt: Date | null;
  modifiedAt: Date | null;
  consumed: number;
  credited: number;
  /** max(0, consumed − credited), as an exact decimal string. */
  billable: string;
  amount: number;
  capped: boolean;
  label: string;
}

/** The product's live metered prices in the subscription's currency, in the product's order. */
export function meteredPrices(prices: readonly ProductPrice[], currency: string): ProductPrice[] {
  return prices.filter(
    (price) =>
      price.amountType === 'metered_unit' &&
      !price.isArchived &&
      price.priceCurrency === currency &&
      price.meterId !== null &&
      price.unitAmount !== null,
  );
}

export function priceUsage(price: ProductPrice, meter: Meter, consumed: number, credited: number) {
  const difference = subtractDecimal(consumed, credited);
  const billable = difference.startsWith('-') ? '0' : difference;
  const raw = meteredAmount(billable, price.unitAmount!);
  const capped = price.capAmount !== null && raw > price.capAmount;
  const amount = capped ? price.capAmount! : raw;
  const label = `${meter.name}: ${billable} units × ${price.unitAmount}¢${capped ? ' (capped)' : ''}`;
  return { billable, amount, capped, label };
}

/** The meters of these prices, each once: what `periodUsage` takes as `known` when the caller read them already. */
export function metersOfPrices(db: Db, prices: readonly ProductPrice[]): Promise<Meter[]> {
  return metersRepository(db).findByIds([...new Set(prices.map((price) => price.meterId!))]);
}

/**
 * Usage as the running aggregates hold it: a meter still backfilling counts only what its backfill reached for the
 * customer, so a bill first counts the rest (metered-billing/usage.ts, through backfill-catch-up.ts) and passes the
 * meters it read as `known`.
 */
export async function periodUsage(
  db: Db,
  customer: MeterCustomer,
  prices: readonly ProductPrice[],
  known?: readonly Meter[],
): Promise<PeriodUsage[]> {
  if (prices.length === 0) return [];
  const meters = new Map((known ?? (await metersOfPrices(db, prices))).map((meter) => [meter.id, meter]));
  const figures = await customerMeterFigures(db, customer, [...meters.values()]);
  const usage: PeriodUsage[] = [];
  for (const price of prices) {
    const meter = meters.get(price.meterId!);
    if (!meter) continue;
    const figure = figures.get(meter.id) ?? null;
    const consumed = figure?.consumed ?? 0;
    const credited = figure?.credited ?? 0;
    usage.push({
      price,
      meter,
      customerMeterId: figure?.id ?? null,
      createdAt: figure?.createdAt ?? null,
      modifiedAt: figure?.modifiedAt ?? null,
      consumed,
      credited,
      ...priceUsage(price, meter, consumed, credited),
    });
  }
  return usage;
}
