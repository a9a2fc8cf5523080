import { z } from 'zod';
import { pageQuery, repeated, sortingQuery } from '../kernel/pagination.js';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';
import { CUSTOM_FIELD_TYPES, propertiesByType, type CustomFieldType } from './properties.js';

export const customFieldType = z.enum(CUSTOM_FIELD_TYPES).meta({ id: 'CustomFieldType' });

/** Polar's slug: lowercase letters, digits, `-` and `_`; it names the field in `custom_field_data`. */
export const customFieldSlug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9-_]+$/, 'Slug may only contain lowercase letters, digits, hyphens and underscores');
export const customFieldName = z.string().min(1).max(100);

const NAMES: Record<CustomFieldType, string> = {
  text: 'Text',
  number: 'Number',
  date: 'Date',
  checkbox: 'Checkbox',
  select: 'Select',
};

function createVariant<T extends CustomFieldType>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      slug: customFieldSlug,
      name: customFieldName,
      organization_id: organizationIdInput,
      metadata: metadataInput.optional(),
      properties: propertiesByType[type],
    })
    .meta({ id: `CustomFieldCreate${NAMES[type]}` });
}

function updateVariant<T extends CustomFieldType>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      slug: customFieldSlug.nullable().optional(),
      name: customFieldName.nullable().optional(),
      metadata: metadataInput.optional(),
      properties: propertiesByType[type].nullable().optional(),
    })
    .meta({ id: `CustomFieldUpdate${NAMES[type]}` });
}

function readVariant<T extends CustomFieldType>(type: T) {
  return z
    .object({
      created_at: datetime,
      modified_at: datetime.nullable(),
      id: z.string(),
      metadata: metadataOutput,
      type: z.literal(type),
      slug: z.string(),
      name: z.string(),
      organization_id: z.string(),
      properties: propertiesByType[type],
    })
    .meta({ id: `CustomField${NAMES[type]}` });
}

export const customFieldCreateSchema = z
  .discriminatedUnion('type', [
    createVariant('text'),
    createVariant('number'),
    createVariant('date'),
    createVariant('checkbox'),
    createVariant('select'),
  ])
  .meta({ id: 'CustomFieldCreate' });

export const customFieldUpdateSchema = z
  .discriminatedUnion('type', [
    updateVariant('text'),
    updateVariant('number'),
    updateVariant('date'),
    updateVariant('checkbox'),
    updateVariant('select'),
  ])
  .meta({ id: 'CustomFieldUpdate' });

export const customFieldSchema = z
  .discriminatedUnion('type', [
    readVariant('text'),
    readVariant('number'),
    readVariant('date'),
    readVariant('checkbox'),
    readVariant('select'),
  ])
  .meta({ id: 'CustomField' });

export const customFieldListSchema = listResource(customFieldSchema, 'ListResource_CustomField_');

export const CUSTOM_FIELD_SORT_FIELDS = ['created_at', 'slug', 'name', 'type'] as const;

export const customFieldListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  query: z.string().max(256).optional(),
  // SDK 0.47 sends the type filter as `type_filter`; Polar's 2026-04 API calls it `type`. Both are read.
  type: repeated(customFieldType).optional(),
  type_filter: repeated(customFieldType).optional(),
  ...pageQuery,
  sorting: sortingQuery(CUSTOM_FIELD_SORT_FIELDS, ['slug']),
});

export type CustomFieldWire = z.output<typeof customFieldSchema>;
export type CustomFieldCreateBody = z.output<typeof customFieldCreateSchema>;
export type CustomFieldCreateInput = z.input<typeof customFieldCreateSchema>;
export type CustomFieldUpdateBody = z.output<typeof customFieldUpdateSchema>;
export type CustomFieldUpdateInput = z.input<typeof customFieldUpdateSchema>;
export type CustomFieldListQuery = z.output<typeof customFieldListQuery>;
export type CustomFieldListWire = z.output<typeof customFieldListSchema>;
