/**
 * Money on the page: amounts are integers in minor units everywhere in Till, so formatting and parsing go through
 * decimal strings (never floats): Intl.NumberFormat formats a decimal string exactly, and a typed amount is read digit
 * by digit.
 */

import { fractionDigits, toMajorString } from '../../../core/kernel/money-text.js';

export { fractionDigits, toMajorString };

const LOCALE = 'en-US';

export function formatMoney(minor: number, currency: string): string {
  const format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: currency.toUpperCase() });
  return format.format(toMajorString(minor, currency) as `${number}`);
}

/** "12.5" or "12,50" → 1250 minor units; null when the text is not an amount in this currency. */
export function parseMajor(text: string, currency: string): number | null {
  const digits = fractionDigits(currency);
  const match = /^\s*(\d{1,9})(?:[.,](\d*))?\s*$/.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}
