// Amounts travel as integers in minor units; they become decimals only here, for a person to read.

/** ISO 4217 currencies without minor units: their amounts are whole units already. */
const ZERO_DECIMAL = new Set(['jpy', 'krw', 'vnd', 'clp', 'isk', 'ugx', 'xaf', 'xof', 'pyg', 'rwf']);

/** 1234 usd → "12.34 USD", -1234 usd → "-12.34 USD", 1500 jpy → "1500 JPY". */
export function money(amount: number, currency: string): string {
  if (ZERO_DECIMAL.has(currency.toLowerCase())) return `${amount} ${currency.toUpperCase()}`;
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${currency.toUpperCase()}`;
}
