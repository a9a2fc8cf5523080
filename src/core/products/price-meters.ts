import type { Db } from '../database/index.js';
import type { FieldIssue } from '../polar-api/errors.js';
import type { PricedMeter, ProductPriceCreate } from './price-schemas.js';
import type { ProductPrice } from './prices.js';
import { productsRepository } from './repository.js';

/** The meters of metered prices by id, read for a whole list of prices at once. */
export type PriceMeters = ReadonlyMap<string, PricedMeter>;

const NO_METERS: PriceMeters = new Map();

export async function loadPriceMeters(db: Db, prices: readonly ProductPrice[]): Promise<PriceMeters> {
  const ids = prices.flatMap((price) => (price.meterId ? [price.meterId] : []));
  if (ids.length === 0) return NO_METERS;
  const meters = await productsRepository(db).pricedMeters(ids);
  return new Map(meters.map(({ organizationId: _, ...meter }) => [meter.id, meter]));
}

/** A metered price must count one of its organization's own meters. */
export async function priceMeterIssues(
  db: Db,
  organizationId: string,
  prices: ReadonlyArray<ProductPriceCreate | { id: string }>,
): Promise<FieldIssue[]> {
  const wanted = prices.flatMap((price, index) =>
    'amount_type' in price && price.amount_type === 'metered_unit' ? [{ index, meterId: price.meter_id }] : [],
  );
  if (wanted.length === 0) return [];
  const owned = new Set(
    (await productsRepository(db).pricedMeters(wanted.map((entry) => entry.meterId)))
      .filter((meter) => meter.organizationId === organizationId)
      .map((meter) => meter.id),
  );
  return wanted
    .filter((entry) => !owned.has(entry.meterId))
    .map((entry) => ({
      loc: ['body', 'prices', entry.index, 'meter_id'],
      msg: 'Meter does not exist.',
      type: 'value_error',
      input: entry.meterId,
    }));
}
