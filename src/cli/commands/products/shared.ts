import type { ProductPriceWire, ProductWire } from '../../../core/products/schemas.js';
import { UsageError } from '../../errors.js';
import { money } from '../../money.js';

/** What the price flags describe: one price, as a person or script states it. */
export type PriceChoice =
  | { kind: 'fixed'; amount: number }
  | { kind: 'custom'; minimum?: number; maximum?: number; preset?: number }
  | { kind: 'free' };

export interface PriceOptions {
  price?: string;
  currency?: string;
  customPrice?: string;
  free?: boolean;
}

export const RECURRING = ['day', 'week', 'month', 'year'] as const;

function minorUnits(flag: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new UsageError(
      `${flag} takes an amount in minor units (cents), a whole number like 1500 for 15.00 (got "${value}")`,
    );
  return Number(value);
}

/** `--custom-price min,max,preset`: any part may be left empty (`100`, `100,5000`, `,,500`). */
function customChoice(value: string): PriceChoice {
  const parts = value.split(',');
  if (parts.length > 3) throw new UsageError(`--custom-price takes min,max,preset (got "${value}")`);
  const [minimum, maximum, preset] = parts.map((part) =>
    part.trim() === '' ? undefined : minorUnits('--custom-price', part.trim()),
  );
  return { kind: 'custom', minimum, maximum, preset };
}

/** The one price the flags name, or null when none is given; several at once is a usage error. */
export function priceChoice(opts: PriceOptions): PriceChoice | null {
  const given = [
    opts.price !== undefined && '--price',
    opts.customPrice !== undefined && '--custom-price',
    opts.free && '--free',
  ].filter(Boolean);
  if (given.length > 1) throw new UsageError(`give one of ${given.join(', ')}, not several`);
  if (opts.price !== undefined) return { kind: 'fixed', amount: minorUnits('--price', opts.price) };
  if (opts.customPrice !== undefined) return customChoice(opts.customPrice);
  if (opts.free) return { kind: 'free' };
  return null;
}

export function currencyOf(opts: PriceOptions): string {
  const currency = (opts.currency ?? 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency))
    throw new UsageError(`--currency takes a three-letter ISO 4217 code such as usd or eur (got "${opts.currency}")`);
  return currency;
}

/** The price's create body in Polar's shape. */
export function priceBody(choice: PriceChoice, currency: string): Record<string, unknown> {
  switch (choice.kind) {
    case 'fixed':
      return { amount_type: 'fixed', price_amount: choice.amount, price_currency: currency };
    case 'free':
      return { amount_type: 'free', price_currency: currency };
    case 'custom':
      return {
        amount_type: 'custom',
        price_currency: currency,
        ...(choice.minimum !== undefined ? { minimum_amount: choice.minimum } : {}),
        ...(choice.maximum !== undefined ? { maximum_amount: choice.maximum } : {}),
        ...(choice.preset !== undefined ? { preset_amount: choice.preset } : {}),
      };
  }
}

export function recurringOf(value: string | undefined): (typeof RECURRING)[number] | undefined {
  if (value === undefined) return undefined;
  if (!(RECURRING as readonly string[]).includes(value))
    throw new UsageError(`--recurring takes ${RECURRING.join(', ')} (got "${value}")`);
  return value as (typeof RECURRING)[number];
}

export function describePrice(price: ProductPriceWire): string {
  switch (price.amount_type) {
    case 'fixed':
      return money(price.price_amount, price.price_currency);
    case 'free':
      return 'free';
    case 'custom': {
      const bounds = price.maximum_amount !== null ? ` to ${money(price.maximum_amount, price.price_currency)}` : '';
      return `pay what you want from ${money(price.minimum_amount, price.price_currency)}${bounds}`;
    }
    case 'metered_unit':
      return `${price.unit_amount} ${price.price_currency.toUpperCase()} cents per unit of ${price.meter.name}`;
  }
}

export function billing(product: ProductWire): string {
  if (!product.recurring_interval) return 'one-time';
  const count = product.recurring_interval_count ?? 1;
  return count === 1 ? `every ${product.recurring_interval}` : `every ${count} ${product.recurring_interval}s`;
}

export function priceSummary(product: ProductWire): string {
  return product.prices.map(describePrice).join(' + ') || 'no price';
}

/** `--field <id>[:required]` as Polar's attached custom fields, in the order given (the checkout asks in that order). */
export function attachedFields(values: string[] | undefined): Array<{ custom_field_id: string; required: boolean }> {
  return (values ?? []).map((value) => {
    const [id, mode, ...rest] = value.split(':');
    if (!id || rest.length > 0 || (mode !== undefined && mode !== 'required' && mode !== 'optional'))
      throw new UsageError(
        `--field takes a custom field id from \`till fields list\`, optionally followed by :required (got "${value}")`,
      );
    return { custom_field_id: id, required: mode === 'required' };
  });
}
