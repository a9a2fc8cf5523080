import {
  compileAggregation,
  compileFilter,
  type CompiledAggregation,
  type MeteredEvent,
  type Predicate,
} from './filter.js';
import type { Meter } from './repository.js';

/**
 * Running aggregates, so that reads never scan events. Each batch of events (an ingestion, a backfill step) is
 * folded here into deltas grouped per (meter, subject) and per (meter, hour); the repository adds them to the stored
 * rows with one multi-row upsert per table. A subject is `c:<customer id>`, or `x:<external id>` for events whose
 * external customer id no customer had when they arrived: reading a customer's meter adds both rows up, so those
 * events count from the moment the customer exists, whatever order things happened in.
 */

export const HOUR_MS = 3_600_000;

export interface CompiledMeter {
  id: string;
  matches: Predicate;
  aggregation: CompiledAggregation;
}

const compiled = new Map<string, { key: string; meter: CompiledMeter }>();

/** Compiled once per meter version (its filter and aggregation), then reused by every batch. */
export function compileMeter(meter: Meter): CompiledMeter {
  const key = `${JSON.stringify(meter.filter)}|${JSON.stringify(meter.aggregation)}`;
  const cached = compiled.get(meter.id);
  if (cached && cached.key === key) return cached.meter;
  const result = {
    id: meter.id,
    matches: compileFilter(meter.filter),
    aggregation: compileAggregation(meter.aggregation),
  };
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(meter.id, { key, meter: result });
  return result;
}

export interface AggregatedEvent extends MeteredEvent {
  organizationId: string;
  customerId: string | null;
  externalCustomerId: string | null;
  timestamp: number;
}

export function subjectOf(event: { customerId: string | null; externalCustomerId: string | null }): string | null {
  if (event.customerId) return `c:${event.customerId}`;
  if (event.externalCustomerId !== null) return `x:${event.externalCustomerId}`;
  return null;
}

export interface Delta {
  events: number;
  valueCount: number;
  valueSum: number;
  valueMin: number | null;
  valueMax: number | null;
}

export interface TotalDelta extends Delta {
  meterId: string;
  subject: string;
  organizationId: string;
  customerId: string | null;
  externalCustomerId: string | null;
}

export interface BucketDelta extends Delta {
  meterId: string;
  bucket: number;
}

export interface BatchDeltas {
  totals: TotalDelta[];
  buckets: BucketDelta[];
  /** [meter id, subject, value] */
  uniqueValues: Array<[string, string, string]>;
  /** [meter id, hour, value] */
  bucketValues: Array<[string, number, string]>;
}

function add(delta: Delta, value: number | null): void {
  delta.events += 1;
  if (value === null) return;
  delta.valueCount += 1;
  delta.valueSum += value;
  if (delta.valueMin === null || value < delta.valueMin) delta.valueMin = value;
  if (delta.valueMax === null || value > delta.valueMax) delta.valueMax = value;
}

const zero = (): Delta => ({ events: 0, valueCount: 0, valueSum: 0, valueMin: null, valueMax: null });

/**
 * The deltas a batch adds, sorted by key: concurrent transactions on PostgreSQL then lock shared rows in one order
 * and wait for each other instead of deadlocking.
 */
export function aggregateBatch(meters: readonly CompiledMeter[], events: readonly AggregatedEvent[]): BatchDeltas {
  const totals = new Map<string, TotalDelta>();
  const buckets = new Map<string, BucketDelta>();
  const uniqueValues = new Map<string, [string, string, string]>();
  const bucketValues = new Map<string, [string, number, string]>();
  for (const event of events) {
    const subject = subjectOf(event);
    if (subject === null) continue;
    const bucket = Math.floor(event.timestamp / HOUR_MS) * HOUR_MS;
    for (const meter of meters) {
      if (!meter.matches(event)) continue;
      const value = meter.aggregation.number(event);
      const totalKey = `${meter.id}|${subject}`;
      let total = totals.get(totalKey);
      if (!total) {
        total = {
          ...zero(),
          meterId: meter.id,
          subject,
          organizationId: event.organizationId,
          customerId: event.customerId,
          externalCustomerId: event.externalCustomerId,
        };
        totals.set(totalKey, total);
      }
      add(total, value);
      const bucketKey = `${meter.id}|${bucket}`;
      let hour = buckets.get(bucketKey);
      if (!hour) buckets.set(bucketKey, (hour = { ...zero(), meterId: meter.id, bucket }));
      add(hour, value);
      const distinct = meter.aggregation.distinct(event);
      if (distinct !== null) {
        uniqueValues.set(`${totalKey}|${distinct}`, [meter.id, subject, distinct]);
        bucketValues.set(`${bucketKey}|${distinct}`, [meter.id, bucket, distinct]);
      }
    }
  }
  const byKey = <T>(map: Map<string, T>): T[] =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
  return {
    totals: byKey(totals),
    buckets: byKey(buckets),
    uniqueValues: byKey(uniqueValues),
    bucketValues: byKey(bucketValues),
  };
}
