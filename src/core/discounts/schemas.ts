import { z } from 'zod';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';

/** Polar's discount wire shapes (2026-04 API; what `@polar-sh/sdk` 0.47 sends and validates). */

export const DISCOUNT_TYPES = ['fixed', 'percentage'] as const;
export const DISCOUNT_DURATIONS = ['once', 'forever', 'repeating'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export type DiscountDuration = (typeof DISCOUNT_DURATIONS)[number];

/** Polar's PresentmentCurrency: the currencies a price or a fixed discount may be in. */
export const PRESENTMENT_CURRENCIES = [
  'aed',
  'all',
  'amd',
  'aoa',
  'ars',
  'aud',
  'awg',
  'azn',
  'bam',
  'bbd',
  'bdt',
  'bif',
  'bmd',
  'bnd',
  'bob',
  'brl',
  'bsd',
  'bwp',
  'bzd',
  'cad',
  'cdf',
  'chf',
  'clp',
  'cny',
  'cop',
  'crc',
  'cve',
  'czk',
  'djf',
  'dkk',
  'dop',
  'dzd',
  'egp',
  'etb',
  'eur',
  'fjd',
  'fkp',
  'gbp',
  'gel',
  'gip',
  'gmd',
  'gnf',
  'gtq',
  'gyd',
  'hkd',
  'hnl',
  'htg',
  'huf',
  'idr',
  'ils',
  'inr',
  'isk',
  'jmd',
  'jpy',
  'kes',
  'kgs',
  'khr',
  'kmf',
  'krw',
  'kyd',
  'kzt',
  'lak',
  'lkr',
  'lrd',
  'lsl',
  'mad',
  'mdl',
  'mga',
  'mkd',
  'mnt',
  'mop',
  'mur',
  'mvr',
  'mwk',
  'mxn',
  'myr',
  'mzn',
  'nad',
  'ngn',
  'nio',
  'nok',
  'npr',
  'nzd',
  'pab',
  'pen',
  'pgk',
  'php',
  'pkr',
  'pln',
  'pyg',
  'qar',
  'ron',
  'rsd',
  'rwf',
  'sar',
  'sbd',
  'scr',
  'sek',
  'sgd',
  'shp',
  'sos',
  'srd',
  'szl',
  'thb',
  'tjs',
  'top',
  'try',
  'ttd',
  'twd',
  'tzs',
  'uah',
  'ugx',
  'usd',
  'uyu',
  'uzs',
  'vnd',
  'vuv',
  'wst',
  'xaf',
  'xcd',
  'xcg',
  'xof',
  'xpf',
  'yer',
  'zar',
  'zmw',
] as const;

export const discountTypeSchema = z.enum(DISCOUNT_TYPES).meta({ id: 'DiscountType' });
export const discountDurationSchema = z.enum(DISCOUNT_DURATIONS).meta({ id: 'DiscountDuration' });
// No schema id: the products module names its own currency schema PresentmentCurrency.
const currencyInput = z.enum(PRESENTMENT_CURRENCIES);

const MAX_AMOUNT = 999_999_999_999;
const MAX_INT32 = 2_147_483_647;
const amountInput = z.number().int().min(0).max(MAX_AMOUNT);
const basisPointsInput = z.number().int().min(1).max(10_000);
const monthsInput = z.number().int().min(1).max(999);
const maxRedemptionsInput = z.number().int().min(1).max(MAX_INT32);
const nameInput = z.string().min(1).max(256);
const dateInput = datetime.transform((value) => new Date(value));
const amountsInput = z
  .partialRecord(currencyInput, amountInput)
  .transform((value) => value as Record<string, number>)
  .refine((value) => Object.keys(value).length >= 1, { message: 'amounts needs at least one currency' });

/**
 * Polar's code rule: 3–256 letters or digits (Python's isalnum, so any script), compared case-insensitively.
 * An empty string means no code, as Polar's EmptyStrToNone does.
 */
export const codeInput = z
  .string()
  .max(256)
  .transform((value) => (value === '' ? null : value))
  .refine((value) => value === null || value.length >= 3, {
    message: 'Code must be between 3 and 256 characters long.',
  })
  .refine((value) => value === null || /^[\p{L}\p{N}]+$/u.test(value), {
    message: 'Code must contain only alphanumeric characters.',
  });

const createCommon = {
  metadata: metadataInput.optional(),
  name: nameInput,
  code: codeInput.nullable().optional(),
  starts_at: dateInput.nullable().optional(),
  ends_at: dateInput.nullable().optional(),
  max_redemptions: maxRedemptionsInput.nullable().optional(),
  products: z.array(z.uuid()).max(100).nullable().optional(),
  organization_id: organizationIdInput,
  duration: discountDurationSchema,
  duration_in_months: monthsInput.nullable().optional(),
};

export const discountFixedCreateSchema = z
  .strictObject({
    ...createCommon,
    type: z.literal('fixed'),
    amount: amountInput.nullable().optional(),
    currency: currencyInput.nullable().optional(),
    amounts: amountsInput.nullable().optional(),
  })
  .meta({ id: 'DiscountFixedCreate' });

export const discountPercentageCreateSchema = z
  .strictObject({ ...createCommon, type: z.literal('percentage'), basis_points: basisPointsInput })
  .meta({ id: 'DiscountPercentageCreate' });

export const discountCreateSchema = z
  .discriminatedUnion('type', [discountFixedCreateSchema, discountPercentageCreateSchema])
  .superRefine((value, ctx) => {
    if (value.duration === 'repeating' && value.duration_in_months == null) {
      ctx.addIssue({
        code: 'custom',
        path: ['duration_in_months'],
        message: 'duration_in_months is required for a repeating discount',
        input: undefined,
      });
    }
    if (value.type === 'fixed' && value.amount == null && value.amounts == null) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount'],
        message: 'A fixed discount needs amount (with currency) or amounts',
        input: undefined,
      });
    }
    checkDates(value.starts_at, value.ends_at, ctx);
  })
  .meta({ id: 'DiscountCreate' });

export const discountUpdateSchema = z
  .strictObject({
    metadata: metadataInput.optional(),
    name: nameInput.nullable().optional(),
    code: codeInput.nullable().optional(),
    starts_at: dateInput.nullable().optional(),
    ends_at: dateInput.nullable().optional(),
    max_redemptions: maxRedemptionsInput.nullable().optional(),
    duration: discountDurationSchema.nullable().optional(),
    duration_in_months: monthsInput.nullable().optional(),
    type: discountTypeSchema.nullable().optional(),
    amount: amountInput.nullable().optional(),
    currency: currencyInput.nullable().optional(),
    amounts: amountsInput.nullable().optional(),
    basis_points: basisPointsInput.nullable().optional(),
    products: z.array(z.uuid()).max(100).nullable().optional(),
  })
  .superRefine((value, ctx) => checkDates(value.starts_at, value.ends_at, ctx))
  .meta({ id: 'DiscountUpdate' });

export type DiscountCreateInput = z.output<typeof discountCreateSchema>;
export type DiscountUpdateInput = z.output<typeof discountUpdateSchema>;

function checkDates(startsAt: Date | null | undefined, endsAt: Date | null | undefined, ctx: z.RefinementCtx): void {
  if (startsAt && endsAt && startsAt >= endsAt) {
    ctx.addIssue({
      code: 'custom',
      path: ['ends_at'],
      message: 'starts_at must be before ends_at',
      input: endsAt.toISOString(),
    });
  }
}

/** Polar's DiscountProduct: a product's own fields, without prices or benefits. */
export const discountProductSchema = z
  .object({
    metadata: metadataOutput,
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    trial_interval: z.enum(['day', 'week', 'month', 'year']).nullable(),
    trial_interval_count: z.number().int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    visibility: z.enum(['draft', 'private', 'public']),
    recurring_interval: z.enum(['day', 'week', 'month', 'year']).nullable(),
    recurring_interval_count: z.number().int().nullable(),
    meter_interval: z.enum(['day', 'week', 'month', 'year']).nullable(),
    meter_interval_count: z.number().int().nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.string(),
  })
  .meta({ id: 'DiscountProduct' });

const baseFields = {
  created_at: datetime,
  modified_at: datetime.nullable(),
  id: z.string(),
  metadata: metadataOutput,
  name: z.string(),
  code: z.string().nullable(),
  starts_at: datetime.nullable(),
  ends_at: datetime.nullable(),
  max_redemptions: z.number().int().nullable(),
  max_redemptions_per_customer: z.number().int().nullable(),
  redemptions_count: z.number().int(),
  organization_id: z.string(),
};
const fixedFields = {
  type: z.literal('fixed'),
  amount: z.number().int(),
  currency: z.string(),
  amounts: z.record(z.string(), z.number().int()),
};
const percentageFields = { type: z.literal('percentage'), basis_points: z.number().int() };
const onceForever = { duration: z.enum(['once', 'forever']) };
const repeat = { duration: z.literal('repeating'), duration_in_months: z.number().int() };

/** The four shapes without products (Polar's `Discount…Base`), as a checkout link embeds its discount. */
export const discountBaseSchema = z
  .union([
    z.object({ ...baseFields, ...fixedFields, ...onceForever }).meta({ id: 'DiscountFixedOnceForeverDurationBase' }),
    z.object({ ...baseFields, ...fixedFields, ...repeat }).meta({ id: 'DiscountFixedRepeatDurationBase' }),
    z
      .object({ ...baseFields, ...percentageFields, ...onceForever })
      .meta({ id: 'DiscountPercentageOnceForeverDurationBase' }),
    z.object({ ...baseFields, ...percentageFields, ...repeat }).meta({ id: 'DiscountPercentageRepeatDurationBase' }),
  ])
  .meta({ id: 'CheckoutLinkDiscount' });

const products = { products: z.array(discountProductSchema) };
export const discountSchema = z
  .union([
    z
      .object({ ...baseFields, ...fixedFields, ...onceForever, ...products })
      .meta({ id: 'DiscountFixedOnceForeverDuration' }),
    z.object({ ...baseFields, ...fixedFields, ...repeat, ...products }).meta({ id: 'DiscountFixedRepeatDuration' }),
    z
      .object({ ...baseFields, ...percentageFields, ...onceForever, ...products })
      .meta({ id: 'DiscountPercentageOnceForeverDuration' }),
    z
      .object({ ...baseFields, ...percentageFields, ...repeat, ...products })
      .meta({ id: 'DiscountPercentageRepeatDuration' }),
  ])
  .meta({ id: 'Discount' });

export const discountListSchema = listResource(discountSchema, 'ListResource_Discount_');

export type DiscountProductWire = z.infer<typeof discountProductSchema>;
export type DiscountBaseWire = z.infer<typeof discountBaseSchema>;
export type DiscountWire = z.infer<typeof discountSchema>;
