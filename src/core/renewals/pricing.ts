import type { Discount } from '../discounts/repository.js';
import { priceCart } from '../kernel/money.js';
import { discountRule } from '../checkouts/pricing.js';
import { addInterval } from '../subscriptions/periods.js';
import type { CycleItem } from '../subscriptions/cycle-hooks.js';

/**
 * What a cycle order costs: the plan's price, plus (or minus) what the cycle hooks add, minus a credit carried from
 * an earlier cycle; the discount if it still applies; tax, as at checkout, on what remains. A total never goes below
 * 0: a credit larger than the charges is carried to the next cycle order (`subscriptions.carried_credit`).
 */

export interface CycleLine {
  label: string;
  /** Signed minor units: a credit is negative. */
  amount: number;
  proration: boolean;
  /** The price a line other than the plan's bills (a metered price), if any. */
  productPriceId?: string;
}

export interface CycleTotals {
  lines: CycleLine[];
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  /** The credit this order could not use, for the next one. */
  carriedCredit: number;
}

/**
 * Whether the subscription's discount still applies to a period starting at `periodStart`: `once` only to the first
 * order (the checkout's), `forever` always, `repeating` for `duration_in_months` from the subscription's start.
 */
export function discountApplies(discount: Discount | null, startedAt: Date, periodStart: Date): boolean {
  if (!discount) return false;
  if (discount.duration === 'forever') return true;
  if (discount.duration === 'once') return false;
  const months = discount.durationInMonths ?? 0;
  return periodStart < addInterval(startedAt, 'month', months);
}

export function cycleTotals(input: {
  plan: { label: string; amount: number };
  items: readonly CycleItem[];
  carriedCredit: number;
  discount: Discount | null;
  currency: string;
  taxBasisPoints: number;
}): CycleTotals {
  const lines: CycleLine[] = [
    { label: input.plan.label, amount: input.plan.amount, proration: false },
    ...input.items.map((item) =>
      item.productPriceId
        ? { label: item.label, amount: item.amount, proration: false, productPriceId: item.productPriceId }
        : { label: item.label, amount: item.amount, proration: true },
    ),
  ];
  if (input.carriedCredit > 0)
    lines.push({ label: 'Credit from an earlier period', amount: -input.carriedCredit, proration: false });
  const sum = lines.reduce((total, line) => total + line.amount, 0);
  const subtotal = Math.max(0, sum);
  const cart = priceCart(
    [{ amount: subtotal, taxBasisPoints: input.taxBasisPoints }],
    discountRule(input.discount, input.currency),
  );
  return {
    lines,
    subtotalAmount: cart.subtotal_amount,
    discountAmount: cart.discount_amount,
    netAmount: cart.net_amount,
    taxAmount: cart.tax_amount,
    totalAmount: cart.total_amount,
    carriedCredit: Math.max(0, -sum),
  };
}
