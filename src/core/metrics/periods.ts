/**
 * Period boundaries in a time zone, as UTC instants, with the platform's Intl data (no library): a local midnight is
 * found by asking the zone's offset at a guess and correcting once for a change of offset in between.
 */

import { formatterOf } from '../kernel/time-zones.js';

export const INTERVALS = ['hour', 'day', 'week', 'month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

function offsetMs(timeZone: string, at: number): number {
  if (timeZone === 'UTC') return 0;
  const format = formatterOf(timeZone);
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(at)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const local = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return local - Math.floor(at / 1000) * 1000;
}

/** The instant of a local wall-clock time (given as if it were UTC) in the zone. */
function zoned(timeZone: string, wall: number): number {
  const first = wall - offsetMs(timeZone, wall);
  return wall - offsetMs(timeZone, first);
}

interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export function parseDate(value: string): CalendarDate {
  const [year, month, day] = value.split('-').map(Number);
  return { year, month: month - 1, day };
}

function truncate(date: CalendarDate, interval: Interval): CalendarDate {
  if (interval === 'year') return { year: date.year, month: 0, day: 1 };
  if (interval === 'month') return { ...date, day: 1 };
  if (interval === 'week') {
    // ISO weeks begin on Monday.
    const weekday = (new Date(Date.UTC(date.year, date.month, date.day)).getUTCDay() + 6) % 7;
    const monday = new Date(Date.UTC(date.year, date.month, date.day - weekday));
    return { year: monday.getUTCFullYear(), month: monday.getUTCMonth(), day: monday.getUTCDate() };
  }
  return date;
}

function step(wall: number, interval: Interval): number {
  const at = new Date(wall);
  switch (interval) {
    case 'hour':
      return wall + 3_600_000;
    case 'day':
      return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
    case 'week':
      return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 7);
    case 'month':
      return Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(at.getUTCFullYear() + 1, 0, 1);
  }
}

/**
 * The periods from the one holding start_date to the one holding end_date: each period's first instant, and the
 * instant after the last one. Hours step in UTC (a local hour is a UTC hour in whole-hour zones); the others step on
 * the local calendar, so a day across a change of clocks lasts 23 or 25 hours.
 */
export function periodBoundaries(
  startDate: string,
  endDate: string,
  interval: Interval,
  timeZone: string,
): { starts: number[]; end: number } {
  const first = truncate(parseDate(startDate), interval);
  const last = parseDate(endDate);
  const endWall = Date.UTC(last.year, last.month, last.day + 1);
  const starts: number[] = [];
  if (interval === 'hour') {
    const from = zoned(timeZone, Date.UTC(first.year, first.month, first.day));
    const to = zoned(timeZone, endWall);
    for (let at = from; at < to; at += 3_600_000) starts.push(at);
    return { starts, end: to };
  }
  let wall = Date.UTC(first.year, first.month, first.day);
  for (; wall < endWall; wall = step(wall, interval)) starts.push(zoned(timeZone, wall));
  return { starts, end: zoned(timeZone, wall) };
}
