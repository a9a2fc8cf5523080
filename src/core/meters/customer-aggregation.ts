import type { AggregatedEvent } from './aggregates.js';
import { combineAggregates, emptyAggregate, eventAggregate, quantityOf, type AggregateState } from './filter.js';
import type { Aggregation, AggregationFunction } from './schemas.js';

/**
 * `customer_aggregation_function`, as Polar defines it: the meter's quantity is figured per customer first, then
 * those quantities are combined by the given function (`count`: customers with a quantity, `unique`: how many
 * distinct quantities). A customer whose matched events carry no numeric value has no sum, min, max or average (SQL's
 * NULL in Polar), so is left out rather than counted as 0.
 */

export function combineCustomers(func: AggregationFunction, quantities: readonly number[]): number {
  if (quantities.length === 0) return 0;
  switch (func) {
    case 'count':
      return quantities.length;
    case 'sum':
      return quantities.reduce((sum, quantity) => sum + quantity, 0);
    case 'max':
      return Math.max(...quantities);
    case 'min':
      return Math.min(...quantities);
    case 'avg':
      return quantities.reduce((sum, quantity) => sum + quantity, 0) / quantities.length;
    case 'unique':
      return new Set(quantities).size;
  }
}

/**
 * The combinations the all-customers hourly aggregates answer exactly, with no per-customer figures: summing
 * customers' counts or sums gives the count or sum of all events, and the largest (smallest) of their maxima
 * (minima) is the largest (smallest) value. Polar's dashboard asks for `sum`.
 */
export function derivableFromBuckets(meterFunc: Aggregation['func'], customerFunc: AggregationFunction): boolean {
  if (customerFunc === 'sum') return meterFunc === 'sum' || meterFunc === 'count';
  return (customerFunc === 'max' || customerFunc === 'min') && meterFunc === customerFunc;
}

/** One customer's figures in one period, or over the whole range. */
class Figures {
  state: AggregateState = emptyAggregate();
  values = new Set<string>();

  add(value: number | null, distinct: string | null): void {
    this.state = combineAggregates(this.state, eventAggregate(value));
    if (distinct !== null) this.values.add(distinct);
  }

  quantity(func: Aggregation['func']): number | null {
    if (func !== 'count' && func !== 'unique' && this.state.valueCount === 0) return null;
    return quantityOf(func, { ...this.state, distinct: this.values.size });
  }
}

export interface CustomerSeriesInput {
  meterFunc: Aggregation['func'];
  customerFunc: AggregationFunction;
  periods: number;
  /** Each matched event with its owner, its period's index and what the meter reads of it. */
  events: Iterable<{ owner: string; period: number; value: number | null; distinct: string | null }>;
}

/** Per period, and over the whole range, the customers' quantities combined by `customerFunc`. */
export function customerSeries(input: CustomerSeriesInput): { quantities: number[]; total: number } {
  const perPeriod: Array<Map<string, Figures>> = Array.from({ length: input.periods }, () => new Map());
  const overall = new Map<string, Figures>();
  const figuresOf = (map: Map<string, Figures>, owner: string): Figures => {
    let figures = map.get(owner);
    if (!figures) map.set(owner, (figures = new Figures()));
    return figures;
  };
  for (const event of input.events) {
    figuresOf(perPeriod[event.period]!, event.owner).add(event.value, event.distinct);
    figuresOf(overall, event.owner).add(event.value, event.distinct);
  }
  const combine = (map: Map<string, Figures>): number =>
    combineCustomers(
      input.customerFunc,
      [...map.values()].map((figures) => figures.quantity(input.meterFunc)).filter((q): q is number => q !== null),
    );
  return { quantities: perPeriod.map(combine), total: combine(overall) };
}

/** The customer (among those asked for) an event counts for: by id, or by the external id it was sent with. */
export function ownerOf(
  event: Pick<AggregatedEvent, 'customerId' | 'externalCustomerId'>,
  byExternalId: ReadonlyMap<string, string>,
): string | null {
  if (event.customerId !== null) return event.customerId;
  return event.externalCustomerId === null ? null : (byExternalId.get(event.externalCustomerId) ?? null);
}
