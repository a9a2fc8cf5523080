import type { Customer } from '../customers/repository.js';
import { customersRepository } from '../customers/repository.js';
import type { CustomerStateWire } from '../customers/schemas.js';
import type { Db } from '../database/index.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { meterAggregatesRepository, type StoredTotal } from './aggregates-repository.js';
import { subjectsOfCustomer } from './aggregates.js';
import { combineAggregates, emptyAggregate, quantityOf, type AggregateState } from './filter.js';
import { metersRepository, type Meter } from './repository.js';
import type { CustomerMeterFigures } from './wire.js';

/**
 * A customer's meters, figured from the running aggregates: each read costs a few indexed lookups whatever the
 * number of events (no event is scanned). A customer's `c:` row and the `x:` row of events sent by their external id
 * before they existed are added up; `unique` counts the distinct values of both together.
 */
export async function customerMeterFigures(
  db: Db,
  customer: Pick<Customer, 'id' | 'organizationId' | 'externalId'>,
  meters: readonly Meter[],
  rows?: readonly StoredTotal[],
): Promise<Map<string, CustomerMeterFigures>> {
  const aggregates = meterAggregatesRepository(db);
  const wanted = new Set(meters.map((meter) => meter.id));
  const totals = (rows ?? (await aggregates.totalsOfCustomer(customer))).filter((row) => wanted.has(row.meterId));
  const subjects = subjectsOfCustomer(customer);
  const uniqueIds = meters.filter((meter) => meter.aggregation.func === 'unique').map((meter) => meter.id);
  const distinct =
    uniqueIds.length > 0 ? await aggregates.distinctCounts(uniqueIds, subjects) : new Map<string, number>();
  const byMeter = new Map<string, StoredTotal[]>();
  for (const row of totals) byMeter.set(row.meterId, [...(byMeter.get(row.meterId) ?? []), row]);
  const figures = new Map<string, CustomerMeterFigures>();
  for (const meter of meters) {
    const own = byMeter.get(meter.id);
    if (!own || own.length === 0) continue;
    let state: AggregateState = emptyAggregate();
    for (const row of own) state = combineAggregates(state, { ...row, distinct: 0 });
    state.distinct = distinct.get(meter.id) ?? 0;
    // The customer's own row names the customer meter; the pending row only when it is all there is.
    const named = own.find((row) => row.customerId !== null) ?? own[0]!;
    const modified = own.map((row) => row.modifiedAt?.getTime() ?? row.createdAt.getTime());
    figures.set(meter.id, {
      id: named.id,
      createdAt: new Date(Math.min(...own.map((row) => row.createdAt.getTime()))),
      modifiedAt: new Date(Math.max(...modified)),
      consumed: quantityOf(meter.aggregation.func, state),
      credited: own.reduce((sum, row) => sum + row.credited, 0),
    });
  }
  return figures;
}

/** CustomerState's `active_meters`: every meter of the customer's organization not archived that counted them. */
export async function activeMetersOf(
  db: Db,
  customerId: string,
  known?: Customer,
  knownRows?: readonly StoredTotal[],
): Promise<CustomerStateWire['active_meters']> {
  const customer = known ?? (await customersRepository(db).findAnyById(customerId));
  if (!customer) return [];
  const rows = knownRows ?? (await meterAggregatesRepository(db).totalsOfCustomer(customer));
  if (rows.length === 0) return [];
  const meters = (await metersRepository(db).findByIds(rows.map((row) => row.meterId))).filter(
    (meter) => meter.archivedAt === null,
  );
  const figures = await customerMeterFigures(db, customer, meters, rows);
  return meters
    .filter((meter) => figures.has(meter.id))
    .map((meter) => {
      const figure = figures.get(meter.id)!;
      return {
        id: figure.id,
        created_at: iso(figure.createdAt),
        modified_at: isoOrNull(figure.modifiedAt),
        meter_id: meter.id,
        consumed_units: figure.consumed,
        credited_units: figure.credited,
        balance: figure.credited - figure.consumed,
      };
    });
}

/**
 * activeMetersOf for many customers (a batch of renewals' states): their totals read in one query, and only the
 * customers with any read further. By customer id.
 */
export async function activeMetersOfMany(
  db: Db,
  customers: readonly Customer[],
): Promise<Map<string, CustomerStateWire['active_meters']>> {
  const rows = await meterAggregatesRepository(db).totalsOfCustomers(customers);
  const meters = new Map<string, CustomerStateWire['active_meters']>();
  for (const customer of customers) {
    const own = rows.get(customer.id) ?? [];
    meters.set(customer.id, own.length === 0 ? [] : await activeMetersOf(db, customer.id, customer, own));
  }
  return meters;
}
