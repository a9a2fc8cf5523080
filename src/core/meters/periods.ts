import { fieldError } from '../polar-api/errors.js';
import { HOUR_MS } from './aggregates.js';
import { MAX_QUANTITY_POINTS, type TimeInterval } from './schemas.js';
import { formatterOf } from '../kernel/time-zones.js';

/**
 * A quantity series' periods in an IANA time zone: days, weeks (from Monday, as ISO weeks), months and years start
 * at the zone's local midnight, hours at the zone's local hour (a UTC hour in every zone whose offset is whole
 * hours). Offsets come from Intl (the ICU data Node ships), so daylight saving moves a day's start with the clock.
 */

const DAY_MS = 24 * HOUR_MS;
/** The zone's wall clock at `at`, as milliseconds of a UTC date with the same fields (seconds precision). */
function wallClock(at: number, zone: string): number {
  if (zone === 'UTC') return at;
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(at)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const seconds = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return seconds + (((at % 1000) + 1000) % 1000);
}

/** The zone's offset from UTC at `at`, in milliseconds. */
export function offsetAt(at: number, zone: string): number {
  return wallClock(at, zone) - at;
}

/**
 * The first instant whose wall clock is `local` or later: the instant itself, the earlier of two when clocks went
 * back, and the end of the gap when clocks jumped over it (a few zones skip midnight itself). Offsets change at most
 * once within a day of a period's start, so the offsets a day either side are the only candidates.
 */
function instantOf(local: number, zone: string): number {
  if (zone === 'UTC') return local;
  let best = Number.POSITIVE_INFINITY;
  for (const probe of [local - DAY_MS, local + DAY_MS]) {
    const candidate = local - offsetAt(probe, zone);
    if (candidate < best && wallClock(candidate, zone) >= local) best = candidate;
  }
  return best;
}

/** The start of the period of `interval` in `zone` that contains `at`. */
export function periodStart(at: number, interval: TimeInterval, zone = 'UTC'): number {
  if (interval === 'hour') {
    const local = wallClock(at, zone);
    return at - (((local % HOUR_MS) + HOUR_MS) % HOUR_MS);
  }
  const date = new Date(wallClock(at, zone));
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  switch (interval) {
    case 'day':
      return instantOf(day, zone);
    case 'week':
      return instantOf(day - ((date.getUTCDay() + 6) % 7) * DAY_MS, zone);
    case 'month':
      return instantOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), zone);
    case 'year':
      return instantOf(Date.UTC(date.getUTCFullYear(), 0, 1), zone);
  }
}

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: number, interval: TimeInterval, zone = 'UTC'): number {
  if (interval === 'hour') return start + HOUR_MS;
  const date = new Date(wallClock(start, zone));
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
  switch (interval) {
    case 'day':
      return instantOf(Date.UTC(year, month, day + 1), zone);
    case 'week':
      return instantOf(Date.UTC(year, month, day + 7), zone);
    case 'month':
      return instantOf(Date.UTC(year, month + 1, 1), zone);
    case 'year':
      return instantOf(Date.UTC(year + 1, 0, 1), zone);
  }
}

/** The periods from the one holding `start` to the one holding `end`, both included. */
export function periodsBetween(start: number, end: number, interval: TimeInterval, zone = 'UTC'): number[] {
  const periods: number[] = [];
  for (let at = periodStart(start, interval, zone); at <= end; at = nextPeriod(at, interval, zone)) {
    periods.push(at);
    if (periods.length > MAX_QUANTITY_POINTS)
      throw fieldError(['query', 'interval'], `At most ${MAX_QUANTITY_POINTS} points: choose a longer interval.`);
  }
  return periods;
}

/** `at` as ISO-8601 with the zone's offset there (`Z` in UTC), so a local period reads as its local start. */
export function isoInZone(at: number, zone: string): string {
  const exact = offsetAt(at, zone);
  // Zones' offsets before 1900 (local mean time) carry seconds, which ISO-8601 offsets cannot: those stay in UTC.
  if (zone === 'UTC' || exact % 60_000 !== 0) return new Date(at).toISOString();
  const offset = exact / 60_000;
  const local = new Date(at + offset * 60_000).toISOString().slice(0, -1);
  const sign = offset < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${local}${sign}${hours}:${minutes}`;
}
