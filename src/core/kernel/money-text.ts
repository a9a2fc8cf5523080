/**
 * Amounts as people read them. Till keeps money as integers in minor units; turning one into a decimal goes through
 * strings, never floats, with the currency's own number of digits (2 for usd, 0 for jpy) as Intl knows it.
 */

const LOCALE = 'en-US';

// Building an Intl.NumberFormat costs tens of microseconds: a CSV export of a million orders asks for the digits of
// the same currency millions of times. Intl accepts only three-letter codes, so the map holds at most 26³ entries.
const DIGITS = new Map<string, number>();

export function fractionDigits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = DIGITS.get(code);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat(LOCALE, { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    DIGITS.set(code, digits);
  }
  return digits;
}

/** 1234 minor units → "12.34" (usd), 1500 → "1500" (jpy). */
export function toMajorString(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** 1234 usd → "12.34 USD": the form messages and documents use. */
export function moneyText(minor: number, currency: string): string {
  return `${toMajorString(minor, currency)} ${currency.toUpperCase()}`;
}
