import { z } from 'zod';
import { datetime } from '../polar-api/schemas.js';

/** Prices as Polar's API shows and takes them (ProductPrice* and ProductPrice*Create, 2026-04 and SDK 0.47). */

export const AMOUNT_TYPES = ['fixed', 'custom', 'free', 'metered_unit'] as const;
export type AmountType = (typeof AMOUNT_TYPES)[number];

export const TAX_BEHAVIORS = ['location', 'inclusive', 'exclusive'] as const;
export const PRICE_SOURCES = ['catalog', 'ad_hoc'] as const;

/** Polar's ceiling for a price (MAXIMUM_PRICE_AMOUNT): just under a million dollars. */
export const MAX_PRICE_AMOUNT = 99_999_999;
const MAX_CAP_AMOUNT = 2_147_483_647;

const currencyInput = z
  .string()
  .regex(/^[a-z]{3}$/, 'Currency must be a lowercase three-letter ISO 4217 code, e.g. usd')
  .default('usd')
  .meta({ id: 'PresentmentCurrency' });
const taxBehaviorInput = z.enum(TAX_BEHAVIORS).nullable().optional();
const amount = z.number().int().min(0).max(MAX_PRICE_AMOUNT);

/** Polar's decimal pattern for unit amounts: up to 5 integer digits and 12 decimals, as a string. */
const UNIT_AMOUNT = /^\+?0*(?:\d{0,5}|\d{0,5}\.\d{0,12}0*)$/;

export const productPriceFixedCreateSchema = z
  .strictObject({
    amount_type: z.literal('fixed'),
    price_currency: currencyInput,
    tax_behavior: taxBehaviorInput,
    price_amount: amount,
  })
  .meta({ id: 'ProductPriceFixedCreate' });

export const productPriceCustomCreateSchema = z
  .strictObject({
    amount_type: z.literal('custom'),
    price_currency: currencyInput,
    tax_behavior: taxBehaviorInput,
    // Absent: the currency's minimum charge, as in Polar.
    minimum_amount: amount.optional(),
    maximum_amount: amount.min(1).nullable().optional(),
    preset_amount: amount.nullable().optional(),
  })
  .meta({ id: 'ProductPriceCustomCreate' });

export const productPriceFreeCreateSchema = z
  .strictObject({ amount_type: z.literal('free'), price_currency: currencyInput, tax_behavior: taxBehaviorInput })
  .meta({ id: 'ProductPriceFreeCreate' });

export const productPriceMeteredUnitCreateSchema = z
  .strictObject({
    amount_type: z.literal('metered_unit'),
    price_currency: currencyInput,
    tax_behavior: taxBehaviorInput,
    meter_id: z.uuid(),
    // Cents per unit, fractions allowed; a number is read through its shortest decimal form, then kept as text.
    unit_amount: z
      .union([
        z.number().positive().max(99_999),
        z.string().max(40).regex(UNIT_AMOUNT, 'Unit amount must be a positive decimal number of cents, e.g. "0.05"'),
      ])
      .transform((value, ctx) => {
        const text = normalizeDecimal(typeof value === 'number' ? numberToDecimal(value) : value);
        if (text === '0') {
          ctx.addIssue({ code: 'custom', message: 'Unit amount must be greater than 0' });
          return z.NEVER;
        }
        return text;
      }),
    cap_amount: z.number().int().min(0).max(MAX_CAP_AMOUNT).nullable().optional(),
  })
  .meta({ id: 'ProductPriceMeteredUnitCreate' });

export const productPriceCreateSchema = z.discriminatedUnion('amount_type', [
  productPriceFixedCreateSchema,
  productPriceCustomCreateSchema,
  productPriceFreeCreateSchema,
  productPriceMeteredUnitCreateSchema,
]);

export type ProductPriceCreate = z.output<typeof productPriceCreateSchema>;

export const existingProductPriceSchema = z
  .strictObject({ id: z.string().min(1).max(64) })
  .meta({ id: 'ExistingProductPrice' });

/** In an update: keep an existing price by id, or create a new one. */
export const productPriceUpdateItemSchema = z.union([existingProductPriceSchema, productPriceCreateSchema]);

// Output

const priceBase = {
  created_at: datetime,
  modified_at: datetime.nullable(),
  id: z.string(),
  source: z.enum(PRICE_SOURCES),
  price_currency: z.string(),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullable(),
  is_archived: z.boolean(),
  product_id: z.string(),
};

export const productPriceFixedSchema = z
  .object({ ...priceBase, amount_type: z.literal('fixed'), price_amount: z.number().int() })
  .meta({ id: 'ProductPriceFixed' });
export const productPriceCustomSchema = z
  .object({
    ...priceBase,
    amount_type: z.literal('custom'),
    minimum_amount: z.number().int(),
    maximum_amount: z.number().int().nullable(),
    preset_amount: z.number().int().nullable(),
  })
  .meta({ id: 'ProductPriceCustom' });
export const productPriceFreeSchema = z
  .object({ ...priceBase, amount_type: z.literal('free') })
  .meta({ id: 'ProductPriceFree' });
export const productPriceMeterSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    unit: z.enum(['scalar', 'token', 'custom']),
    custom_label: z.string().nullable(),
    custom_multiplier: z.number().int().nullable(),
  })
  .meta({ id: 'ProductPriceMeter' });
export const productPriceMeteredUnitSchema = z
  .object({
    ...priceBase,
    amount_type: z.literal('metered_unit'),
    unit_amount: z.string(),
    cap_amount: z.number().int().nullable(),
    meter_id: z.string(),
    meter: productPriceMeterSchema,
  })
  .meta({ id: 'ProductPriceMeteredUnit' });

export const productPriceSchema = z
  .discriminatedUnion('amount_type', [
    productPriceFixedSchema,
    productPriceCustomSchema,
    productPriceFreeSchema,
    productPriceMeteredUnitSchema,
  ])
  .meta({ id: 'ProductPrice' });

export type ProductPriceWire = z.infer<typeof productPriceSchema>;
/** Polar's ProductPriceMeter: what a metered price says of its meter. */
export type PricedMeter = z.infer<typeof productPriceMeterSchema>;

/** `0.050` → `0.05`, `007` → `7`, `.5` → `0.5`: one spelling per amount, so equal prices compare equal. */
export function normalizeDecimal(text: string): string {
  const unsigned = text.replace(/^\+/, '');
  const [whole = '', fraction = ''] = unsigned.split('.');
  const integer = whole.replace(/^0+(?=\d)/, '') || '0';
  const decimals = fraction.replace(/0+$/, '');
  return decimals ? `${integer}.${decimals}` : integer;
}

function numberToDecimal(value: number): string {
  // toString gives exponents below 1e-6; toFixed(12) covers Polar's 12 decimals without them.
  return value.toFixed(12);
}
