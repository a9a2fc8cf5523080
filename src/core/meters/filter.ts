import type { Aggregation, Filter, FilterClause } from './schemas.js';

/**
 * Meters compiled once into plain functions: a filter into a predicate, an aggregation's property into a reader.
 * Ingestion runs them over every event of a batch, so nothing here parses or allocates per event beyond the lookup.
 *
 * Semantics (the same as the SQL in filter-sql.ts, which lists events by a filter):
 * - `name` and `source` are the event's own fields; any other property is a metadata key (`metadata.` prefix
 *   optional).
 * - A clause whose value is a number compares numbers (a metadata value that is not a number never matches); a
 *   boolean compares booleans with eq/ne only; a string compares the value's text (`3`, `true`) as text.
 * - `like` / `not_like`: case-insensitive containment of the clause's text.
 * - A property the event lacks matches no clause, `ne` and `not_like` included (SQL's NULL).
 */

export interface MeteredEvent {
  name: string;
  source: string;
  metadata: Record<string, unknown>;
}

export type Predicate = (event: MeteredEvent) => boolean;
type Reader = (event: MeteredEvent) => unknown;

/** Polar's structured metadata keys (EventMetadataInput): objects, where every other key holds a scalar. */
export const STRUCTURED_METADATA_KEYS = ['_llm', '_cost'] as const;

/**
 * The metadata path a property names. Polar reads a dotted property as a path (`_llm.total_tokens`); only the
 * structured keys hold objects, so a dot elsewhere is part of the key (`gpt.tokens` is one key), which reads the
 * same as Polar for any path that can hold a value there and keeps meters on dotted keys working.
 */
export function metadataPath(property: string): string[] {
  const key = property.startsWith('metadata.') ? property.slice('metadata.'.length) : property;
  const dot = key.indexOf('.');
  if (dot > 0 && (STRUCTURED_METADATA_KEYS as readonly string[]).includes(key.slice(0, dot)))
    return [key.slice(0, dot), key.slice(dot + 1)];
  return [key];
}

export function propertyReader(property: string): Reader {
  if (property === 'name') return (event) => event.name;
  if (property === 'source') return (event) => event.source;
  const [key, field] = metadataPath(property) as [string, string | undefined];
  if (field === undefined) return (event) => event.metadata[key];
  return (event) => {
    const structured = event.metadata[key];
    return typeof structured === 'object' && structured !== null
      ? (structured as Record<string, unknown>)[field]
      : undefined;
  };
}

export function compileFilter(filter: Filter): Predicate {
  const parts = filter.clauses.map((clause) => ('clauses' in clause ? compileFilter(clause) : compileClause(clause)));
  if (parts.length === 0) return () => true;
  // Loops, where every/some would allocate a closure over the event for each event and each filter.
  if (filter.conjunction === 'and')
    return (event) => {
      for (let i = 0; i < parts.length; i++) if (!parts[i]!(event)) return false;
      return true;
    };
  return (event) => {
    for (let i = 0; i < parts.length; i++) if (parts[i]!(event)) return true;
    return false;
  };
}

function compileClause(clause: FilterClause): Predicate {
  const read = propertyReader(clause.property);
  const { operator, value } = clause;
  if (typeof value === 'number') {
    const compare = numberComparison(operator, value);
    return (event) => {
      const found = read(event);
      return typeof found === 'number' && compare(found);
    };
  }
  if (typeof value === 'boolean') {
    return (event) => {
      const found = read(event);
      if (typeof found !== 'boolean') return false;
      if (operator === 'eq') return found === value;
      if (operator === 'ne') return found !== value;
      return false;
    };
  }
  const compare = textComparison(operator, value);
  return (event) => {
    const found = read(event);
    return (
      (typeof found === 'string' || typeof found === 'number' || typeof found === 'boolean') && compare(String(found))
    );
  };
}

function numberComparison(operator: FilterClause['operator'], value: number): (found: number) => boolean {
  switch (operator) {
    case 'eq':
      return (found) => found === value;
    case 'ne':
      return (found) => found !== value;
    case 'gt':
      return (found) => found > value;
    case 'gte':
      return (found) => found >= value;
    case 'lt':
      return (found) => found < value;
    case 'lte':
      return (found) => found <= value;
    case 'like':
      return (found) => String(found).includes(String(value));
    case 'not_like':
      return (found) => !String(found).includes(String(value));
  }
}

function textComparison(operator: FilterClause['operator'], value: string): (found: string) => boolean {
  const lower = value.toLowerCase();
  switch (operator) {
    case 'eq':
      return (found) => found === value;
    case 'ne':
      return (found) => found !== value;
    case 'gt':
      return (found) => found > value;
    case 'gte':
      return (found) => found >= value;
    case 'lt':
      return (found) => found < value;
    case 'lte':
      return (found) => found <= value;
    case 'like':
      return (found) => found.toLowerCase().includes(lower);
    case 'not_like':
      return (found) => !found.toLowerCase().includes(lower);
  }
}

/**
 * What an event adds to a meter: every matched event counts; property aggregations also take the property's value
 * when it is a finite number (others are left out of sum/min/max/avg, as SQL aggregates skip NULLs); `unique` takes
 * the value's JSON text, so `1` and `"1"` are two values.
 */
export interface CompiledAggregation {
  func: Aggregation['func'];
  number(event: MeteredEvent): number | null;
  distinct(event: MeteredEvent): string | null;
}

export function compileAggregation(aggregation: Aggregation): CompiledAggregation {
  if (aggregation.func === 'count') return { func: 'count', number: () => null, distinct: () => null };
  const read = propertyReader(aggregation.property);
  if (aggregation.func === 'unique') {
    return {
      func: 'unique',
      number: () => null,
      distinct: (event) => {
        const found = read(event);
        return found === undefined || found === null ? null : JSON.stringify(found);
      },
    };
  }
  return {
    func: aggregation.func,
    number: (event) => {
      const found = read(event);
      return typeof found === 'number' && Number.isFinite(found) ? found : null;
    },
    distinct: () => null,
  };
}

/** A running aggregate (per subject, per hour, or combined), and what a meter makes of it. */
export interface AggregateState {
  events: number;
  valueCount: number;
  valueSum: number;
  valueMin: number | null;
  valueMax: number | null;
  /** For `unique`: how many distinct values, counted by whoever assembled the state. */
  distinct: number;
}

export function emptyAggregate(): AggregateState {
  return { events: 0, valueCount: 0, valueSum: 0, valueMin: null, valueMax: null, distinct: 0 };
}

/** One event's share: it counts, and its value (null when the property is missing or not a number) is one more. */
export function eventAggregate(value: number | null): AggregateState {
  return {
    events: 1,
    valueCount: value === null ? 0 : 1,
    valueSum: value ?? 0,
    valueMin: value,
    valueMax: value,
    distinct: 0,
  };
}

export function combineAggregates(a: AggregateState, b: AggregateState): AggregateState {
  return {
    events: a.events + b.events,
    valueCount: a.valueCount + b.valueCount,
    valueSum: a.valueSum + b.valueSum,
    valueMin: a.valueMin === null ? b.valueMin : b.valueMin === null ? a.valueMin : Math.min(a.valueMin, b.valueMin),
    valueMax: a.valueMax === null ? b.valueMax : b.valueMax === null ? a.valueMax : Math.max(a.valueMax, b.valueMax),
    distinct: a.distinct + b.distinct,
  };
}

export function quantityOf(func: Aggregation['func'], state: AggregateState): number {
  switch (func) {
    case 'count':
      return state.events;
    case 'sum':
      return state.valueSum;
    case 'max':
      return state.valueMax ?? 0;
    case 'min':
      return state.valueMin ?? 0;
    case 'avg':
      return state.valueCount === 0 ? 0 : state.valueSum / state.valueCount;
    case 'unique':
      return state.distinct;
  }
}
