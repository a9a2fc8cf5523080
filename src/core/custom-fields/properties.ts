import { z } from 'zod';

/**
 * Each custom field type's `properties`, as Polar validates them (`CustomField<Type>Properties`): the same shape on
 * create, update and read. Label, help text and placeholder are what the checkout form shows.
 */

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const int32 = z.number().int().min(INT32_MIN).max(INT32_MAX);
const nonNegativeInt32 = z.number().int().min(0).max(INT32_MAX);
// Polar leaves these unbounded; the caps keep a form's texts to what a form can show.
const formText = (max: number) => z.string().min(1).max(max);

const formProperties = {
  form_label: formText(200).optional(),
  form_help_text: formText(1000).optional(),
  form_placeholder: formText(200).optional(),
};

function ordered<T extends { ge?: number; le?: number }>(value: T, ctx: z.RefinementCtx): void {
  if (value.ge !== undefined && value.le !== undefined && value.ge > value.le) {
    ctx.addIssue({ code: 'custom', path: ['le'], message: 'le must be greater than or equal to ge', input: value.le });
  }
}

export const textProperties = z
  .strictObject({
    ...formProperties,
    textarea: z.boolean().optional(),
    min_length: nonNegativeInt32.optional(),
    max_length: nonNegativeInt32.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.min_length !== undefined && value.max_length !== undefined && value.min_length > value.max_length) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_length'],
        message: 'max_length must be greater than or equal to min_length',
        input: value.max_length,
      });
    }
  })
  .meta({ id: 'CustomFieldTextProperties' });

export const numberProperties = z
  .strictObject({ ...formProperties, ge: int32.optional(), le: int32.optional() })
  .superRefine(ordered)
  .meta({ id: 'CustomFieldNumberProperties' });

/** Date bounds are Unix timestamps in seconds, as Polar takes them. */
export const dateProperties = z
  .strictObject({ ...formProperties, ge: int32.optional(), le: int32.optional() })
  .superRefine(ordered)
  .meta({ id: 'CustomFieldDateProperties' });

export const checkboxProperties = z.strictObject({ ...formProperties }).meta({ id: 'CustomFieldCheckboxProperties' });

export const selectOption = z
  .strictObject({ value: z.string().min(1).max(200), label: z.string().min(1).max(200) })
  .meta({ id: 'CustomFieldSelectOption' });

export const selectProperties = z
  .strictObject({ ...formProperties, options: z.array(selectOption).min(1).max(100) })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.options.forEach((option, index) => {
      if (seen.has(option.value))
        ctx.addIssue({
          code: 'custom',
          path: ['options', index, 'value'],
          message: `Duplicate option value "${option.value}"`,
          input: option.value,
        });
      seen.add(option.value);
    });
  })
  .meta({ id: 'CustomFieldSelectProperties' });

export const propertiesByType = {
  text: textProperties,
  number: numberProperties,
  date: dateProperties,
  checkbox: checkboxProperties,
  select: selectProperties,
} as const;

export type CustomFieldProperties<T extends CustomFieldType = CustomFieldType> = z.output<(typeof propertiesByType)[T]>;
