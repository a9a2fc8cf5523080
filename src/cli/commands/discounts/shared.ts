import type { DiscountWire } from '../../../core/discounts/schemas.js';
import { UsageError } from '../../errors.js';
import { money } from '../../money.js';

/**
 * A discount as typed on the command line or into the form: text until it is checked, so both paths read and
 * check values with the same functions and say the same thing about a bad one.
 */
export interface DiscountDraft {
  name?: string;
  code?: string;
  percent?: string;
  amount?: string;
  currency?: string;
  duration?: string;
  months?: string;
  maxRedemptions?: string;
  startsAt?: string;
  endsAt?: string;
  product?: string[];
}

export const DURATIONS = ['once', 'forever', 'repeating'] as const;

type Parsed<T> = { value: T } | { error: string };

/** `25` or `12.5` percent as basis points, with no float arithmetic (12.5 → 1250). */
export function parsePercent(text: string): Parsed<number> {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  const points = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : NaN;
  if (!match || points < 1 || points > 10_000)
    return { error: `--percent takes a percentage from 0.01 to 100 with at most two decimals (got "${text}")` };
  return { value: points };
}

/** An amount in minor units (cents): a whole number, as the API takes it. */
export function parseAmount(text: string): Parsed<number> {
  if (!/^\d{1,12}$/.test(text.trim()))
    return { error: `--amount takes a whole number of minor units, e.g. 500 for $5.00 (got "${text}")` };
  return { value: Number(text.trim()) };
}

export function parseCurrency(text: string): Parsed<string> {
  const currency = text.trim().toLowerCase();
  return /^[a-z]{3}$/.test(currency)
    ? { value: currency }
    : { error: `--currency takes a three-letter code such as usd (got "${text}")` };
}

export function parseDuration(text: string): Parsed<(typeof DURATIONS)[number]> {
  const duration = text.trim().toLowerCase();
  return (DURATIONS as readonly string[]).includes(duration)
    ? { value: duration as (typeof DURATIONS)[number] }
    : { error: `--duration takes once, forever or repeating (got "${text}")` };
}

export function parseCount(flag: string, text: string, max: number): Parsed<number> {
  const count = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || count < 1 || count > max)
    return { error: `${flag} takes a whole number from 1 to ${max} (got "${text}")` };
  return { value: count };
}

export function parseDate(flag: string, text: string): Parsed<string> {
  const date = new Date(text.trim());
  // A bare date is midnight UTC, which is what someone typing 2026-12-01 means for a sale's start or end.
  if (Number.isNaN(date.getTime()))
    return { error: `${flag} takes a date or date-time, e.g. 2026-12-01 or 2026-12-01T09:00:00Z (got "${text}")` };
  return { value: date.toISOString() };
}

function take<T>(parsed: Parsed<T>): T {
  if ('error' in parsed) throw new UsageError(parsed.error);
  return parsed.value;
}

/** The flags a create still needs, by flag name; empty when the draft is complete. */
export function missingFlags(draft: DiscountDraft): string[] {
  const missing: string[] = [];
  if (!draft.name) missing.push('--name');
  if (draft.percent === undefined && draft.amount === undefined) missing.push('--percent or --amount');
  if (!draft.duration) missing.push('--duration');
  if (draft.duration === 'repeating' && draft.months === undefined) missing.push('--months');
  return missing;
}

/** The request body for POST /v1/discounts/ (or, with `partial`, PATCH): every value checked, a usage error if not. */
export function discountBody(draft: DiscountDraft, options: { partial?: boolean } = {}): Record<string, unknown> {
  if (draft.percent !== undefined && draft.amount !== undefined)
    throw new UsageError('give either --percent or --amount, not both');
  if (draft.currency !== undefined && draft.amount === undefined && !options.partial)
    throw new UsageError('--currency goes with --amount');
  const body: Record<string, unknown> = {};
  if (draft.name !== undefined) body.name = draft.name;
  if (draft.code !== undefined) body.code = draft.code === '' ? null : draft.code;
  if (draft.percent !== undefined) {
    if (!options.partial) body.type = 'percentage';
    body.basis_points = take(parsePercent(draft.percent));
  }
  if (draft.amount !== undefined) {
    if (!options.partial) body.type = 'fixed';
    body.amount = take(parseAmount(draft.amount));
  }
  // An update keeps the discount's currency unless told otherwise; a new one defaults to usd, as Polar does.
  if (draft.currency !== undefined || (draft.amount !== undefined && !options.partial))
    body.currency = take(parseCurrency(draft.currency ?? 'usd'));
  if (draft.duration !== undefined) body.duration = take(parseDuration(draft.duration));
  if (draft.months !== undefined) body.duration_in_months = take(parseCount('--months', draft.months, 999));
  if (draft.maxRedemptions !== undefined)
    body.max_redemptions =
      draft.maxRedemptions === 'none'
        ? null
        : take(parseCount('--max-redemptions', draft.maxRedemptions, 2_147_483_647));
  if (draft.startsAt !== undefined)
    body.starts_at = draft.startsAt === 'none' ? null : take(parseDate('--starts-at', draft.startsAt));
  if (draft.endsAt !== undefined)
    body.ends_at = draft.endsAt === 'none' ? null : take(parseDate('--ends-at', draft.endsAt));
  if (draft.product !== undefined) body.products = draft.product;
  return body;
}

/** "25% off once" or "$5.00 off for 3 months": what a person reads back after creating one. */
export function describeDiscount(discount: DiscountWire): string {
  const value =
    discount.type === 'percentage' ? `${discount.basis_points / 100}%` : money(discount.amount, discount.currency);
  const duration = discount.duration === 'repeating' ? `for ${discount.duration_in_months} months` : discount.duration;
  return `${value} off, ${duration}`;
}
