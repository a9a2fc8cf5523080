import type { Customer } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { fieldError } from '../polar-api/errors.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { HOUR_MS, compileMeter, subjectOf, type AggregatedEvent } from './aggregates.js';
import { customerSeries, derivableFromBuckets, ownerOf } from './customer-aggregation.js';
import { combineAggregates, emptyAggregate, eventAggregate, quantityOf, type AggregateState } from './filter.js';
import { matchesMetadata } from './metadata-match.js';
import { isoInZone, nextPeriod, periodsBetween } from './periods.js';
import type { Meter } from './repository.js';
import type { AggregationFunction, MeterQuantitiesWire, TimeInterval } from './schemas.js';

export interface QuantitiesRange {
  start: number;
  end: number;
  interval: TimeInterval;
  /** An IANA zone: where days, weeks, months and years start (periods.ts). */
  timezone: string;
}

export interface QuantitiesOptions {
  /** Polar's customer_aggregation_function: per customer first, then combined (customer-aggregation.ts). */
  customerAggregation: AggregationFunction | null;
  metadata: MetadataQuery;
}

const NEEDS_CUSTOMERS = 'with customer_id or external_customer_id (their events are read)';

/**
 * What the all-customers series cannot answer: it adds up hourly aggregates of every customer's events, which keep
 * neither events' metadata nor per-customer figures, nor a finer grain than the UTC hour. Answering would mean
 * reading every event in the range, so each is a 422 at its parameter instead of a silently different series.
 */
function refuseUnanswerable(meter: Meter, boundaries: readonly number[], options: QuantitiesOptions): void {
  if (Object.values(options.metadata).some((values) => values.length > 0))
    throw fieldError(
      ['query', 'metadata'],
      `Quantities can be filtered by metadata only ${NEEDS_CUSTOMERS}: the running aggregates of all customers keep no events' metadata.`,
    );
  const customerFunc = options.customerAggregation;
  if (customerFunc !== null && !derivableFromBuckets(meter.aggregation.func, customerFunc))
    throw fieldError(
      ['query', 'customer_aggregation_function'],
      `'${customerFunc}' of per-customer '${meter.aggregation.func}' quantities is supported only ${NEEDS_CUSTOMERS}; ` +
        "for all customers, 'sum' of a count or sum meter and 'max' ('min') of a max (min) meter are.",
    );
  if (boundaries.some((at) => at % HOUR_MS !== 0))
    throw fieldError(
      ['query', 'timezone'],
      `This time zone's periods do not start on a whole UTC hour, which all customers' aggregates are kept by; it is supported ${NEEDS_CUSTOMERS}.`,
    );
}

/**
 * A meter's series: per period, the meter's aggregation over the events whose timestamp falls in it, and the same
 * over the whole range. For all customers it adds up the hourly aggregates (periods are whole hours, so an event
 * counts in its hour's period even when the range starts or ends inside that hour); for given customers it reads
 * their events, which an index on (customer, timestamp) bounds to theirs in the range, so any zone, metadata filter
 * or per-customer aggregation applies to them.
 */
export async function meterQuantities(
  db: Db,
  meter: Meter,
  range: QuantitiesRange,
  customers: readonly Customer[] | null,
  options: QuantitiesOptions = { customerAggregation: null, metadata: {} },
): Promise<MeterQuantitiesWire> {
  const zone = range.timezone;
  const periods = periodsBetween(range.start, range.end, range.interval, zone);
  const from = periods[0]!;
  const to = nextPeriod(periods[periods.length - 1]!, range.interval, zone);
  const indexOf = (at: number): number => {
    let low = 0;
    let high = periods.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (periods[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const series = (quantities: number[], total: number): MeterQuantitiesWire => ({
    quantities: periods.map((period, i) => ({ timestamp: isoInZone(period, zone), quantity: quantities[i]! })),
    total,
  });
  const func = meter.aggregation.func;
  const states: AggregateState[] = periods.map(() => emptyAggregate());
  const values: Array<Set<string>> = periods.map(() => new Set());
  const aggregates = meterAggregatesRepository(db);
  if (customers === null) {
    refuseUnanswerable(meter, [...periods, to], options);
    // A derivable customer aggregation is the meter's own aggregation of all events (derivableFromBuckets).
    for (const bucket of await aggregates.buckets(meter.id, from, to)) {
      const i = indexOf(bucket.bucket);
      states[i] = combineAggregates(states[i]!, { ...bucket, distinct: 0 });
    }
    if (func === 'unique')
      for (const row of await aggregates.bucketValues(meter.id, from, to)) values[indexOf(row.bucket)]!.add(row.value);
  } else {
    const compiled = compileMeter(meter);
    const matched: AggregatedEvent[] = [];
    for (const event of await aggregates.eventsOfCustomers(meter.organizationId, customers, from, to))
      if (subjectOf(event) !== null && compiled.matches(event) && matchesMetadata(event.metadata, options.metadata))
        matched.push(event);
    if (options.customerAggregation !== null) {
      const byExternalId = new Map<string, string>();
      for (const customer of customers)
        if (customer.externalId !== null) byExternalId.set(customer.externalId, customer.id);
      const perCustomer = customerSeries({
        meterFunc: func,
        customerFunc: options.customerAggregation,
        periods: periods.length,
        events: matched.flatMap((event) => {
          const owner = ownerOf(event, byExternalId);
          if (owner === null) return [];
          const value = compiled.aggregation.number(event);
          return [{ owner, period: indexOf(event.timestamp), value, distinct: compiled.aggregation.distinct(event) }];
        }),
      });
      return series(perCustomer.quantities, perCustomer.total);
    }
    for (const event of matched) {
      const i = indexOf(event.timestamp);
      const value = compiled.aggregation.number(event);
      states[i] = combineAggregates(states[i]!, eventAggregate(value));
      const distinct = compiled.aggregation.distinct(event);
      if (distinct !== null) values[i]!.add(distinct);
    }
  }
  let total = emptyAggregate();
  const all = new Set<string>();
  const quantities = periods.map((_, i) => {
    const state = states[i]!;
    if (func === 'unique') {
      state.distinct = values[i]!.size;
      for (const value of values[i]!) all.add(value);
    }
    total = combineAggregates(total, state);
    return quantityOf(func, state);
  });
  total.distinct = all.size;
  return series(quantities, quantityOf(func, total));
}
