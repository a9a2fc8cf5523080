import { UsageError } from './errors.js';

/**
 * Flags checked before anything is sent: a value the daemon would refuse is a usage error (exit 2) that names the
 * flag and says what it takes, in plain words, rather than a 422 about a query parameter the user never typed.
 */

function invalid(flag: string, rule: string, value: string): UsageError {
  return new UsageError(`invalid ${flag}: must be ${rule} (got "${value}")`);
}

/** A whole number from `min` to `max` (no sign, no decimals, no exponent), as a number. */
export function wholeNumberFlag(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const rule =
    max === Number.MAX_SAFE_INTEGER ? `a whole number of ${min} or more` : `a whole number from ${min} to ${max}`;
  const trimmed = value.trim();
  if (!/^\d{1,15}$/.test(trimmed)) throw invalid(flag, rule, value);
  const number = Number(trimmed);
  if (number < min || number > max) throw invalid(flag, rule, value);
  return number;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/**
 * An ISO 8601 date (2026-01-31, its start in UTC) or date-time (UTC unless it gives its offset), as the daemon takes
 * times: a full UTC date-time. A day that does not exist (2026-02-30) is refused, not rolled over.
 */
export function isoTimeFlag(flag: string, value: string): string {
  const trimmed = value.trim();
  const match = ISO_TIME.exec(trimmed);
  const [, year, month, day] = match ?? [];
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const zoned = trimmed.length === 10 ? `${trimmed}T00:00:00Z` : match?.[4] ? trimmed : `${trimmed}Z`;
  const time = new Date(zoned);
  if (
    !match ||
    calendar.getUTCMonth() + 1 !== Number(month) ||
    calendar.getUTCDate() !== Number(day) ||
    Number.isNaN(time.getTime())
  )
    throw invalid(flag, 'an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T09:30:00Z', value);
  return time.toISOString();
}

/** One of a fixed set of words (statuses, kinds), compared as typed. */
export function choiceFlag<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw invalid(flag, `one of ${choices.join(', ')}`, value);
  return value as T;
}
