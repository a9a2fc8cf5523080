import { z } from 'zod';

/**
 * Polar's structured metadata keys of an event (EventMetadataInput): `_cost` (CostMetadata) and `_llm`
 * (LLMMetadata), objects where every other key holds a scalar. Meters read their fields by a dotted property
 * (`_llm.total_tokens`, `_cost.amount`; meters/filter.ts's metadataPath).
 *
 * `_cost.amount` arrives as a number or a decimal string (cents, at most 5 integer and 12 fractional digits) and is
 * stored as a number, so that meters sum it and filters compare it as a number on both databases; the wire gives it
 * back as the decimal string Polar's CostMetadata-Output is (a double keeps 15 significant digits of the 17 the
 * pattern allows).
 */

// Polar's pattern for the amount: not only signs and dots, up to 5 integer digits, up to 12 fractional ones.
const AMOUNT_TEXT = /^(?!^[-+.]*$)[+-]?0*(?:\d{0,5}|(?=[\d.]{1,18}0*$)\d{0,5}\.\d{0,12}0*$)/;
const MAX_AMOUNT = 100_000;

const amountNumber = (value: number): boolean => Number.isFinite(value) && Math.abs(value) < MAX_AMOUNT;
const amountText = (value: string): boolean => AMOUNT_TEXT.test(value) && amountNumber(Number(value));

export const costMetadataInput = z
  .object({
    amount: z.union([
      z.number().refine(amountNumber, { message: 'The amount must be under 100000 cents.' }),
      z
        .string()
        .refine(amountText, { message: 'Input should be a decimal with at most 5 integer and 12 decimal digits' }),
    ]),
    currency: z.literal('usd', { message: "Only 'usd' is supported." }),
  })
  .meta({ id: 'CostMetadata-Input' });

export const llmMetadata = z
  .object({
    vendor: z.string().max(500),
    model: z.string().max(500),
    prompt: z.string().max(100_000).nullable().optional(),
    response: z.string().max(100_000).nullable().optional(),
    input_tokens: z.number().int(),
    cached_input_tokens: z.number().int().optional(),
    output_tokens: z.number().int(),
    total_tokens: z.number().int(),
  })
  .meta({ id: 'LLMMetadata' });

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const isCount = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value);
const isText = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'string' && value.length >= min && value.length <= max;
const LLM_KEYS = new Set([
  'vendor',
  'model',
  'prompt',
  'response',
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'total_tokens',
]);

/**
 * The schemas above by hand, for the ingestion's fast check (events/schemas.ts): true only where they accept and
 * return the value unchanged. A field they do not know is dropped by them, as Polar's TypedDicts drop it, so it is
 * left to them.
 */
export function validStructured(key: '_cost' | '_llm', value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (key === '_cost') {
    for (const field in value) if (field !== 'amount' && field !== 'currency') return false;
    const { amount, currency } = value;
    if (currency !== 'usd') return false;
    return typeof amount === 'number' ? amountNumber(amount) : typeof amount === 'string' && amountText(amount);
  }
  for (const field in value) if (!LLM_KEYS.has(field)) return false;
  const optionalText = (text: unknown) => text === undefined || text === null || isText(text, 0, 100_000);
  return (
    isText(value.vendor, 0, 500) &&
    isText(value.model, 0, 500) &&
    optionalText(value.prompt) &&
    optionalText(value.response) &&
    isCount(value.input_tokens) &&
    (value.cached_input_tokens === undefined || isCount(value.cached_input_tokens)) &&
    isCount(value.output_tokens) &&
    isCount(value.total_tokens)
  );
}

/** The metadata as stored: `_cost.amount` as a number; anything else as sent (and the same object when nothing moves). */
export function storedMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const cost = metadata._cost as { amount: number | string; currency: string } | undefined;
  if (cost === undefined || typeof cost.amount === 'number') return metadata;
  return { ...metadata, _cost: { ...cost, amount: Number(cost.amount) } };
}

/** A stored amount as Polar's decimal string: no exponent, at most 12 fractional digits, no trailing zeros. */
export function amountWire(amount: number): string {
  const fixed = amount.toFixed(12);
  const trimmed = fixed.replace(/\.?0+$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}

/** The metadata as the wire gives it (Polar's EventMetadataOutput). */
export function metadataWire(metadata: Record<string, unknown>): Record<string, unknown> {
  const cost = metadata._cost as { amount: unknown; currency: string } | undefined;
  if (cost === undefined || typeof cost !== 'object' || typeof cost.amount !== 'number') return metadata;
  return { ...metadata, _cost: { ...cost, amount: amountWire(cost.amount) } };
}
