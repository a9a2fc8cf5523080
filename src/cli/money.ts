// Amounts travel as integers in minor units; they become decimals only for a person to read, formatted as the
// daemon's own messages format them (one definition, in the kernel).
import { formatAmount } from '../core/kernel/money.js';

/** 1234 usd → "12.34 USD", -1234 usd → "-12.34 USD", 1500 jpy → "1500 JPY". */
export function money(amount: number, currency: string): string {
  return formatAmount(amount, currency);
}
