import { randomUUID } from 'node:crypto';
import type { FieldIssue } from '../polar-api/errors.js';
import { toBool, toDate, toDateOrNull } from '../database/index.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { formatAmount } from '../kernel/money.js';
import type { AmountType, ProductPriceCreate, ProductPriceWire } from './price-schemas.js';
import type { PRICE_SOURCES, TAX_BEHAVIORS } from './price-schemas.js';
import type { PriceMeters } from './price-meters.js';

/** A price of a product. Only the amounts of its amount type are set; the others are null. */
export interface ProductPrice {
  id: string;
  productId: string;
  amountType: AmountType;
  priceCurrency: string;
  taxBehavior: (typeof TAX_BEHAVIORS)[number] | null;
  source: (typeof PRICE_SOURCES)[number];
  priceAmount: number | null;
  minimumAmount: number | null;
  maximumAmount: number | null;
  presetAmount: number | null;
  /** Cents per unit as a decimal string (metered prices). */
  unitAmount: string | null;
  capAmount: number | null;
  meterId: string | null;
  isArchived: boolean;
  position: number;
  createdAt: Date;
  modifiedAt: Date | null;
}

/**
 * The smallest charge card networks accept, in minor units, from Polar's table (2026-04); other currencies get
 * Polar's fallback of 50 minor units. Zero-decimal currencies (JPY, KRW…) count whole units.
 */
const MINIMUM_CHARGE: Record<string, number> = {
  usd: 50,
  eur: 50,
  chf: 50,
  gbp: 40,
  aud: 70,
  cad: 70,
  sgd: 70,
  nzd: 90,
  hkd: 400,
  jpy: 80,
  krw: 800,
  sek: 500,
  nok: 500,
  dkk: 320,
  pln: 200,
  czk: 1500,
  huf: 17500,
  brl: 250,
  mxn: 900,
  inr: 6000,
  zar: 900,
};

export function minimumCharge(currency: string): number {
  return MINIMUM_CHARGE[currency] ?? 50;
}

function optionalNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function priceFromRow(row: Record<string, unknown>): ProductPrice {
  return {
    id: String(row.id),
    productId: String(row.product_id),
    amountType: String(row.amount_type) as AmountType,
    priceCurrency: String(row.price_currency),
    taxBehavior: (row.tax_behavior ?? null) as ProductPrice['taxBehavior'],
    source: String(row.source) as ProductPrice['source'],
    priceAmount: optionalNumber(row.price_amount),
    minimumAmount: optionalNumber(row.minimum_amount),
    maximumAmount: optionalNumber(row.maximum_amount),
    presetAmount: optionalNumber(row.preset_amount),
    unitAmount: row.unit_amount === null || row.unit_amount === undefined ? null : String(row.unit_amount),
    capAmount: optionalNumber(row.cap_amount),
    meterId: row.meter_id === null || row.meter_id === undefined ? null : String(row.meter_id),
    isArchived: toBool(row.is_archived),
    position: Number(row.position),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function priceToRow(price: ProductPrice): Record<string, unknown> {
  return {
    id: price.id,
    product_id: price.productId,
    amount_type: price.amountType,
    price_currency: price.priceCurrency,
    tax_behavior: price.taxBehavior,
    source: price.source,
    price_amount: price.priceAmount,
    minimum_amount: price.minimumAmount,
    maximum_amount: price.maximumAmount,
    preset_amount: price.presetAmount,
    unit_amount: price.unitAmount,
    cap_amount: price.capAmount,
    meter_id: price.meterId,
    is_archived: price.isArchived,
    position: price.position,
    created_at: price.createdAt,
    modified_at: price.modifiedAt,
  };
}

/** Polar's price; a metered one embeds its meter, looked up in `meters` (loadPriceMeters). */
export function priceWire(price: ProductPrice, meters: PriceMeters): ProductPriceWire {
  const base = {
    created_at: iso(price.createdAt),
    modified_at: isoOrNull(price.modifiedAt),
    id: price.id,
    source: price.source,
    price_currency: price.priceCurrency,
    tax_behavior: price.taxBehavior,
    is_archived: price.isArchived,
    product_id: price.productId,
  };
  switch (price.amountType) {
    case 'fixed':
      return { ...base, amount_type: 'fixed', price_amount: price.priceAmount ?? 0 };
    case 'custom':
      return {
        ...base,
        amount_type: 'custom',
        minimum_amount: price.minimumAmount ?? 0,
        maximum_amount: price.maximumAmount,
        preset_amount: price.presetAmount,
      };
    case 'free':
      return { ...base, amount_type: 'free' };
    case 'metered_unit': {
      const meterId = price.meterId ?? '';
      return {
        ...base,
        amount_type: 'metered_unit',
        unit_amount: price.unitAmount ?? '0',
        cap_amount: price.capAmount,
        meter_id: meterId,
        // Prices written before meter ids were checked can name no meter; the SDK still requires the object.
        meter: meters.get(meterId) ?? {
          id: meterId,
          name: meterId,
          unit: 'scalar',
          custom_label: null,
          custom_multiplier: null,
        },
      };
    }
  }
}

/** A new price row from its create input; the amount rules have been checked by priceRuleIssues. */
export function newPrice(productId: string, input: ProductPriceCreate, position: number, at: Date): ProductPrice {
  const price: ProductPrice = {
    id: randomUUID(),
    productId,
    amountType: input.amount_type,
    priceCurrency: input.price_currency,
    taxBehavior: input.tax_behavior ?? null,
    source: 'catalog',
    priceAmount: null,
    minimumAmount: null,
    maximumAmount: null,
    presetAmount: null,
    unitAmount: null,
    capAmount: null,
    meterId: null,
    isArchived: false,
    position,
    createdAt: at,
    modifiedAt: null,
  };
  switch (input.amount_type) {
    case 'fixed':
      price.priceAmount = input.price_amount;
      break;
    case 'custom':
      price.minimumAmount = input.minimum_amount ?? minimumCharge(input.price_currency);
      price.maximumAmount = input.maximum_amount ?? null;
      price.presetAmount = input.preset_amount ?? null;
      break;
    case 'metered_unit':
      price.unitAmount = input.unit_amount;
      price.capAmount = input.cap_amount ?? null;
      price.meterId = input.meter_id;
      break;
    case 'free':
      break;
  }
  return price;
}

/** Amounts are either 0 (free / pay what you want) or at least the currency's minimum charge. */
function belowMinimum(amount: number | null | undefined, currency: string): boolean {
  return amount !== null && amount !== undefined && amount !== 0 && amount < minimumCharge(currency);
}

/** Field issues of one new price's amounts (loc relative to the price). */
export function priceAmountIssues(input: ProductPriceCreate, loc: Array<string | number>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const min = minimumCharge(input.price_currency);
  const tooSmall = (field: string) =>
    issues.push({
      loc: [...loc, field],
      msg: `Amount must be 0 or at least ${formatAmount(min, input.price_currency)} (the smallest charge)`,
      type: 'greater_than_equal',
    });
  if (input.amount_type === 'fixed' && belowMinimum(input.price_amount, input.price_currency)) tooSmall('price_amount');
  if (input.amount_type === 'custom') {
    const minimum = input.minimum_amount ?? min;
    if (belowMinimum(minimum, input.price_currency)) tooSmall('minimum_amount');
    if (input.maximum_amount !== null && input.maximum_amount !== undefined) {
      if (input.maximum_amount < min) tooSmall('maximum_amount');
      else if (input.maximum_amount < minimum) {
        issues.push({
          loc: [...loc, 'maximum_amount'],
          msg: 'The maximum amount must be greater than or equal to the minimum amount',
          type: 'value_error',
        });
      }
    }
    const preset = input.preset_amount;
    if (preset !== null && preset !== undefined) {
      if (belowMinimum(preset, input.price_currency)) tooSmall('preset_amount');
      else if (preset < minimum)
        issues.push({
          loc: [...loc, 'preset_amount'],
          msg: 'The preset amount must be greater than or equal to the minimum amount',
          type: 'value_error',
        });
      else if (input.maximum_amount !== null && input.maximum_amount !== undefined && preset > input.maximum_amount) {
        issues.push({
          loc: [...loc, 'preset_amount'],
          msg: 'The preset amount must be less than or equal to the maximum amount',
          type: 'value_error',
        });
      }
    }
  }
  return issues;
}

/**
 * Polar's rules for a product's set of prices, per currency: at most one fixed price, or a single custom or free
 * price, plus any number of metered prices; a free price stands alone; metered prices only on recurring products.
 * `prices` are the product's live prices after the change, each with the loc to blame.
 */
export function priceSetIssues(
  prices: Array<{ amountType: AmountType; priceCurrency: string; loc: Array<string | number> }>,
  recurring: boolean,
  listLoc: Array<string | number>,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (prices.length === 0) return [{ loc: listLoc, msg: 'A product needs at least one price', type: 'too_short' }];
  const byCurrency = new Map<string, typeof prices>();
  for (const price of prices) {
    if (price.amountType === 'metered_unit' && !recurring) {
      issues.push({
        loc: [...price.loc, 'amount_type'],
        msg: 'Metered prices are not supported on one-time purchase products',
        type: 'value_error',
      });
    }
    byCurrency.set(price.priceCurrency, [...(byCurrency.get(price.priceCurrency) ?? []), price]);
  }
  for (const group of byCurrency.values()) {
    const statics = group.filter((price) => price.amountType !== 'metered_unit');
    if (statics.length > 1) {
      const second = statics[1]!;
      const free = statics.some((price) => price.amountType === 'free');
      issues.push({
        loc: [...second.loc, 'amount_type'],
        msg: free
          ? 'A free price cannot be combined with other prices'
          : 'A product can have only one fixed, custom or free price per currency (plus metered prices)',
        type: 'value_error',
      });
    }
    if (statics.some((price) => price.amountType === 'free') && group.length > 1) {
      const other = group.find((price) => price.amountType !== 'free')!;
      if (statics.length === 1)
        issues.push({
          loc: [...other.loc, 'amount_type'],
          msg: 'A free price cannot be combined with other prices',
          type: 'value_error',
        });
    }
  }
  return issues;
}
