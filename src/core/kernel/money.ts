/**
 * Money arithmetic in integer minor units. Nothing here ever produces a fraction: rates are basis points
 * (1/100 of a percent), rounding is half away from zero, and splitting an amount across lines uses the largest
 * remainder method so the parts always add up to the whole.
 */

export const BASIS_POINTS = 10_000;

function assertAmount(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
}

/** `amount × basisPoints / 10 000`, rounded half away from zero (BigInt, so large amounts never lose precision). */
export function applyBasisPoints(amount: number, basisPoints: number): number {
  assertAmount(amount, 'amount');
  assertAmount(basisPoints, 'basisPoints');
  const product = BigInt(amount) * BigInt(basisPoints);
  const denominator = BigInt(BASIS_POINTS);
  const magnitude = product < 0n ? -product : product;
  const rounded = (magnitude * 2n + denominator) / (denominator * 2n);
  return Number(product < 0n ? -rounded : rounded);
}

/**
 * Splits `total` across lines in proportion to `weights` (largest remainder): each part is the floor of its exact
 * share, and the units left over go to the lines with the largest remainders (earlier lines first on ties).
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  assertAmount(total, 'total');
  if (total < 0) throw new RangeError('allocate takes a non-negative total');
  if (weights.length === 0) return [];
  for (const weight of weights) {
    assertAmount(weight, 'weight');
    if (weight < 0) throw new RangeError('weights must be non-negative');
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  // Nothing to weigh by (all lines free): everything goes to the first line, which keeps the parts summing up.
  if (sum === 0) return weights.map((_, index) => (index === 0 ? total : 0));
  const bigTotal = BigInt(total);
  const bigSum = BigInt(sum);
  const shares = weights.map((weight, index) => {
    const exact = bigTotal * BigInt(weight);
    return { index, floor: exact / bigSum, remainder: exact % bigSum };
  });
  let left = bigTotal - shares.reduce((acc, share) => acc + share.floor, 0n);
  const order = [...shares].sort((a, b) =>
    b.remainder > a.remainder ? 1 : b.remainder < a.remainder ? -1 : a.index - b.index,
  );
  const parts = shares.map((share) => share.floor);
  for (const share of order) {
    if (left === 0n) break;
    parts[share.index]! += 1n;
    left -= 1n;
  }
  return parts.map(Number);
}

export type DiscountRule = { type: 'fixed'; amount: number } | { type: 'percentage'; basis_points: number };

export interface CartLine {
  amount: number;
  /** Tax rate of this line in basis points (0 when no rate applies). */
  taxBasisPoints: number;
}

export interface PricedLine {
  amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
}

export interface CartTotals {
  lines: PricedLine[];
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
}

/**
 * Prices a cart: the discount is taken from the subtotal (a fixed one capped at it, a percentage rounded half away
 * from zero), split across lines by amount, and tax is computed per line on what remains and summed. Tax is
 * exclusive: it is added on top.
 */
export function priceCart(lines: readonly CartLine[], discount: DiscountRule | null): CartTotals {
  for (const line of lines) {
    assertAmount(line.amount, 'line amount');
    if (line.amount < 0) throw new RangeError('line amounts must be non-negative');
  }
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  let discountAmount = 0;
  if (discount?.type === 'fixed') discountAmount = Math.min(Math.max(discount.amount, 0), subtotal);
  if (discount?.type === 'percentage')
    discountAmount = Math.min(
      applyBasisPoints(subtotal, Math.min(Math.max(discount.basis_points, 0), BASIS_POINTS)),
      subtotal,
    );
  const lineDiscounts = allocate(
    discountAmount,
    lines.map((line) => line.amount),
  );
  const priced = lines.map((line, index) => {
    const net = line.amount - lineDiscounts[index]!;
    return {
      amount: line.amount,
      discount_amount: lineDiscounts[index]!,
      net_amount: net,
      tax_amount: applyBasisPoints(net, line.taxBasisPoints),
    };
  });
  const net = subtotal - discountAmount;
  const tax = priced.reduce((sum, line) => sum + line.tax_amount, 0);
  return {
    lines: priced,
    subtotal_amount: subtotal,
    discount_amount: discountAmount,
    net_amount: net,
    tax_amount: tax,
    total_amount: net + tax,
  };
}

/**
 * `amount × numerator / denominator`, rounded half away from zero: the share of `numerator` that `amount` is of
 * `denominator` (a partial refund's tax is the order's tax in the proportion of the refunded to the net amount).
 */
export function proportion(amount: number, numerator: number, denominator: number): number {
  assertAmount(amount, 'amount');
  assertAmount(numerator, 'numerator');
  assertAmount(denominator, 'denominator');
  if (denominator === 0) throw new RangeError('proportion of a zero denominator');
  const product = BigInt(amount) * BigInt(numerator);
  const whole = BigInt(denominator < 0 ? -denominator : denominator);
  const signed = denominator < 0 ? -product : product;
  const magnitude = signed < 0n ? -signed : signed;
  const rounded = (magnitude * 2n + whole) / (whole * 2n);
  return Number(signed < 0n ? -rounded : rounded);
}

/** How many minor-unit digits a currency has (2 for usd, 0 for jpy, 3 for kwd), as Intl knows it. */
export function currencyDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    // A code Intl does not know (the API accepts any three letters) is shown with cents, the common case.
    return 2;
  }
}

/**
 * An amount for a message a person reads: 625 usd → "6.25 USD", -625 → "-6.25 USD", 1500 jpy → "1500 JPY".
 * Built from the integer's digits, never through a float, so it is exact at any size.
 */
export function formatAmount(amount: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = amount < 0 ? '-' : '';
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const units = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  return `${sign}${units} ${currency.toUpperCase()}`;
}

/** A finite decimal as an integer and a power of ten: "12.345" → 12345n / 10^3 (exponent forms too: 1e-7). */
function parseDecimal(text: string): { digits: bigint; scale: number } {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal: ${text}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  let digits = BigInt(`${whole}${fraction}` || '0');
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: sign === '-' ? -digits : digits, scale };
}

/**
 * `units × unitAmount` in minor units, rounded half away from zero: a metered price's charge for a period. Both are
 * taken as the decimals they print as (a unit amount is Polar's decimal string of cents per unit; units may be
 * fractional, a `sum` or `avg` meter's), so 3 × "0.1" is exactly 0.3 and rounds to 0, never to a float's 0.30000004.
 */
export function meteredAmount(units: number | string, unitAmount: string): number {
  const a = parseDecimal(String(units));
  const b = parseDecimal(unitAmount);
  const product = a.digits * b.digits;
  const denominator = 10n ** BigInt(a.scale + b.scale);
  const magnitude = product < 0n ? -product : product;
  const rounded = (magnitude * 2n + denominator) / (denominator * 2n);
  const result = Number(product < 0n ? -rounded : rounded);
  assertAmount(result, 'metered amount');
  return result;
}

/** `a − b` of two decimals, exactly, as a decimal string (a meter's consumed units less its integer credits). */
export function subtractDecimal(a: number | string, b: number | string): string {
  const x = parseDecimal(String(a));
  const y = parseDecimal(String(b));
  const scale = Math.max(x.scale, y.scale);
  const difference = x.digits * 10n ** BigInt(scale - x.scale) - y.digits * 10n ** BigInt(scale - y.scale);
  const negative = difference < 0n;
  const text = (negative ? -difference : difference).toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = scale > 0 ? text.slice(text.length - scale).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
