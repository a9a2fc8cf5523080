import { fieldError } from '../polar-api/errors.js';
import type { Discount } from '../discounts/repository.js';
import { isRedeemable } from '../discounts/redemption.js';
import type { CartTotals, DiscountRule } from '../kernel/money.js';
import { formatAmount, priceCart } from '../kernel/money.js';
import type { ProductPrice } from '../products/read.js';

/**
 * What a checkout costs: the chosen price's amount (a custom price takes the buyer's amount within its bounds), the
 * discount if it applies, and the tax on what remains.
 */

export function priceAmount(price: ProductPrice, customAmount: number | null): number {
  switch (price.amountType) {
    case 'fixed':
      return price.priceAmount ?? 0;
    case 'custom':
      return customAmount ?? price.presetAmount ?? price.minimumAmount ?? 0;
    // Metered prices are billed on usage at the end of the period: nothing is due at checkout.
    case 'free':
    case 'metered_unit':
      return 0;
  }
}

/** A custom amount must lie within the price's bounds; other price types take no amount. */
export function checkCustomAmount(
  price: ProductPrice,
  amount: number | null | undefined,
  loc: Array<string | number>,
): void {
  if (amount === null || amount === undefined || price.amountType !== 'custom') return;
  // Polar lets a buyer choose 0 (pay nothing) on a custom price whose minimum is 0.
  const minimum = price.minimumAmount ?? 0;
  if (amount < minimum)
    throw fieldError(
      loc,
      `Amount must be at least ${formatAmount(minimum, price.priceCurrency)}.`,
      'greater_than_equal',
    );
  if (price.maximumAmount !== null && amount > price.maximumAmount)
    throw fieldError(
      loc,
      `Amount must be at most ${formatAmount(price.maximumAmount, price.priceCurrency)}.`,
      'less_than_equal',
    );
}

/** Whether a discount can be used with this product and price now (dates, limit, product restriction, currency). */
export function discountApplies(discount: Discount, productId: string, price: ProductPrice, at: Date): boolean {
  if (!isRedeemable(discount, at)) return false;
  if (discount.productIds.length > 0 && !discount.productIds.includes(productId)) return false;
  if (discount.type === 'fixed') {
    const amount =
      discount.amounts?.[price.priceCurrency] ?? (discount.currency === price.priceCurrency ? discount.amount : null);
    if (amount === null || amount === undefined) return false;
  }
  return true;
}

export function discountRule(discount: Discount | null, currency: string): DiscountRule | null {
  if (!discount) return null;
  if (discount.type === 'percentage') return { type: 'percentage', basis_points: discount.basisPoints ?? 0 };
  const amount = discount.amounts?.[currency] ?? (discount.currency === currency ? discount.amount : 0);
  return { type: 'fixed', amount: amount ?? 0 };
}

export function checkoutTotals(
  amount: number,
  discount: Discount | null,
  currency: string,
  taxBasisPoints: number,
): CartTotals {
  return priceCart([{ amount, taxBasisPoints }], discountRule(discount, currency));
}
