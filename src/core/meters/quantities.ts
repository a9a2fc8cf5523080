import type { Customer } from '../customers/repository.js';
import type { Db } from '../database/index.js';
import { fieldError } from '../polar-api/errors.js';
import { meterAggregatesRepository } from './aggregates-repository.js';
import { HOUR_MS, compileMeter, subjectOf } from './aggregates.js';
import { combineAggregates, emptyAggregate, quantityOf, type AggregateState } from './filter.js';
import type { Meter } from './repository.js';
import { MAX_QUANTITY_POINTS, type MeterQuantitiesWire, type TimeInterval } from './schemas.js';

/** The start of the UTC period of `interval` that contains `at` (weeks start on Monday, as ISO weeks do). */
export function periodStart(at: number, interval: TimeInterval): number {
  const date = new Date(at);
  switch (interval) {
    case 'hour':
      return Math.floor(at / HOUR_MS) * HOUR_MS;
    case 'day':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    case 'week': {
      const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
      return day - ((date.getUTCDay() + 6) % 7) * 24 * HOUR_MS;
    }
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    case 'year':
      return Date.UTC(date.getUTCFullYear(), 0, 1);
  }
}

export function nextPeriod(start: number, interval: TimeInterval): number {
  const date = new Date(start);
  switch (interval) {
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + 24 * HOUR_MS;
    case 'week':
      return start + 7 * 24 * HOUR_MS;
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(date.getUTCFullYear() + 1, 0, 1);
  }
}

/** The periods from the one holding `start` to the one holding `end`, both included. */
export function periodsBetween(start: number, end: number, interval: TimeInterval): number[] {
  const periods: number[] = [];
  for (let at = periodStart(start, interval); at <= end; at = nextPeriod(at, interval)) {
    periods.push(at);
    if (periods.length > MAX_QUANTITY_POINTS)
      throw fieldError(['query', 'interval'], `At most ${MAX_QUANTITY_POINTS} points: choose a longer interval.`);
  }
  return periods;
}

/**
 * A meter's series: per period, the meter's aggregation over the events whose timestamp falls in it, and the same
 * over the whole range. For all customers it adds up the hourly aggregates (periods are whole hours, so an event
 * counts in its hour's period even when the range starts or ends inside that hour); for given customers it reads
 * their events, which an index on (customer, timestamp) bounds to theirs in the range.
 */
export async function meterQuantities(
  db: Db,
  meter: Meter,
  range: { start: number; end: number; interval: TimeInterval },
  customers: readonly Customer[] | null,
): Promise<MeterQuantitiesWire> {
  const periods = periodsBetween(range.start, range.end, range.interval);
  const from = periods[0]!;
  const to = nextPeriod(periods[periods.length - 1]!, range.interval);
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
  const states: AggregateState[] = periods.map(() => emptyAggregate());
  const values: Array<Set<string>> = periods.map(() => new Set());
  const aggregates = meterAggregatesRepository(db);
  const unique = meter.aggregation.func === 'unique';
  if (customers === null) {
    for (const bucket of await aggregates.buckets(meter.id, from, to)) {
      const i = indexOf(bucket.bucket);
      states[i] = combineAggregates(states[i]!, { ...bucket, distinct: 0 });
    }
    if (unique)
      for (const row of await aggregates.bucketValues(meter.id, from, to)) values[indexOf(row.bucket)]!.add(row.value);
  } else {
    const compiled = compileMeter(meter);
    const events = await aggregates.eventsOfCustomers(meter.organizationId, customers, from, to);
    for (const event of events) {
      if (subjectOf(event) === null || !compiled.matches(event)) continue;
      const i = indexOf(event.timestamp);
      const value = compiled.aggregation.number(event);
      states[i] = combineAggregates(states[i]!, {
        events: 1,
        valueCount: value === null ? 0 : 1,
        valueSum: value ?? 0,
        valueMin: value,
        valueMax: value,
        distinct: 0,
      });
      const distinct = compiled.aggregation.distinct(event);
      if (distinct !== null) values[i]!.add(distinct);
    }
  }
  let total = emptyAggregate();
  const all = new Set<string>();
  const quantities = periods.map((period, i) => {
    const state = states[i]!;
    if (unique) {
      state.distinct = values[i]!.size;
      for (const value of values[i]!) all.add(value);
    }
    total = combineAggregates(total, state);
    return { timestamp: new Date(period).toISOString(), quantity: quantityOf(meter.aggregation.func, state) };
  });
  total.distinct = all.size;
  return { quantities, total: quantityOf(meter.aggregation.func, total) };
}
