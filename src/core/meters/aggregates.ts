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

const byKey = <T>(map: Map<string, T>): T[] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/**
 * The deltas a batch adds, sorted by key within each meter (meters in id order): concurrent transactions on
 * PostgreSQL then lock shared rows in one order and wait for each other instead of deadlocking. Totals that no
 * statement writes (held in memory on SQLite) need no order: `sortTotals: false` spares sorting thousands of keys.
 */
export function aggregateBatch(
  meters: readonly CompiledMeter[],
  events: readonly AggregatedEvent[],
  options: { sortTotals?: boolean } = {},
): BatchDeltas {
  const ordered = [...meters].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const perMeter = ordered.map(() => ({
    totals: new Map<string, TotalDelta>(),
    buckets: new Map<number, BucketDelta>(),
    uniqueValues: new Map<string, [string, string, string]>(),
    bucketValues: new Map<string, [string, number, string]>(),
  }));
  for (const event of events) {
    const subject = subjectOf(event);
    if (subject === null) continue;
    const bucket = Math.floor(event.timestamp / HOUR_MS) * HOUR_MS;
    for (let m = 0; m < ordered.length; m++) {
      const meter = ordered[m]!;
      if (!meter.matches(event)) continue;
      const own = perMeter[m]!;
      const value = meter.aggregation.number(event);
      let total = own.totals.get(subject);
      if (!total) {
        total = {
          meterId: meter.id,
          subject,
          organizationId: event.organizationId,
          customerId: event.customerId,
          externalCustomerId: event.externalCustomerId,
          events: 0,
          valueCount: 0,
          valueSum: 0,
          valueMin: null,
          valueMax: null,
        };
        own.totals.set(subject, total);
      }
      add(total, value);
      let hour = own.buckets.get(bucket);
      if (!hour) {
        hour = { meterId: meter.id, bucket, events: 0, valueCount: 0, valueSum: 0, valueMin: null, valueMax: null };
        own.buckets.set(bucket, hour);
      }
      add(hour, value);
      const distinct = meter.aggregation.distinct(event);
      if (distinct !== null) {
        own.uniqueValues.set(`${subject}|${distinct}`, [meter.id, subject, distinct]);
        own.bucketValues.set(`${bucket}|${distinct}`, [meter.id, bucket, distinct]);
      }
    }
  }
  return {
    totals: perMeter.flatMap((own) => (options.sortTotals === false ? [...own.totals.values()] : byKey(own.totals))),
    buckets: perMeter.flatMap((own) => [...own.buckets.values()].sort((a, b) => a.bucket - b.bucket)),
    uniqueValues: perMeter.flatMap((own) => byKey(own.uniqueValues)),
    bucketValues: perMeter.flatMap((own) =>
      [...own.bucketValues.values()].sort((a, b) => a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)),
    ),
  };
}
