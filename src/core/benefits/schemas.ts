import { customerSchema } from '../customers/schemas.js';
import { z } from 'zod';
import { pageQuery, repeated, uuidFilter, sortingQuery } from '../kernel/pagination.js';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';
import { BENEFIT_TYPES, createPropertiesByType, propertiesByType, type BenefitType } from './properties.js';

export const benefitType = z.enum(BENEFIT_TYPES).meta({ id: 'BenefitType' });
export const BENEFIT_VISIBILITIES = ['draft', 'private', 'public'] as const;
export const benefitVisibility = z.enum(BENEFIT_VISIBILITIES).meta({ id: 'BenefitVisibility' });

/** Polar's limit on what products show for a benefit. */
export const benefitDescription = z.string().min(3).max(42);

const NAMES: Record<BenefitType, string> = {
  custom: 'Custom',
  discord: 'Discord',
  github_repository: 'GitHubRepository',
  downloadables: 'Downloadables',
  license_keys: 'LicenseKeys',
  meter_credit: 'MeterCredit',
};

function createVariant<T extends BenefitType>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      description: benefitDescription,
      organization_id: organizationIdInput,
      metadata: metadataInput.optional(),
      visibility: benefitVisibility.nullable().optional(),
      properties: createPropertiesByType[type],
    })
    .meta({ id: `Benefit${NAMES[type]}Create` });
}

function updateVariant<T extends BenefitType>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      description: benefitDescription.nullable().optional(),
      metadata: metadataInput.optional(),
      visibility: benefitVisibility.nullable().optional(),
      properties: createPropertiesByType[type].nullable().optional(),
    })
    .meta({ id: `Benefit${NAMES[type]}Update` });
}

function readVariant<T extends BenefitType>(type: T) {
  return z
    .object({
      id: z.string(),
      created_at: datetime,
      modified_at: datetime.nullable(),
      type: z.literal(type),
      description: z.string(),
      selectable: z.boolean(),
      deletable: z.boolean(),
      is_deleted: z.boolean(),
      organization_id: z.string(),
      metadata: metadataOutput,
      visibility: benefitVisibility,
      visibility_configurable: z.boolean(),
      properties: propertiesByType[type],
    })
    .meta({ id: `Benefit${NAMES[type]}` });
}

export const benefitCreateSchema = z
  .discriminatedUnion('type', [
    createVariant('custom'),
    createVariant('discord'),
    createVariant('github_repository'),
    createVariant('downloadables'),
    createVariant('license_keys'),
    createVariant('meter_credit'),
  ])
  .meta({ id: 'BenefitCreate' });

export const benefitUpdateSchema = z
  .discriminatedUnion('type', [
    updateVariant('custom'),
    updateVariant('discord'),
    updateVariant('github_repository'),
    updateVariant('downloadables'),
    updateVariant('license_keys'),
    updateVariant('meter_credit'),
  ])
  .meta({ id: 'BenefitUpdate' });

export const benefitSchema = z
  .discriminatedUnion('type', [
    readVariant('custom'),
    readVariant('discord'),
    readVariant('github_repository'),
    readVariant('downloadables'),
    readVariant('license_keys'),
    readVariant('meter_credit'),
  ])
  .meta({ id: 'Benefit' });

export const benefitListSchema = listResource(benefitSchema, 'ListResource_Benefit_');

export const BENEFIT_SORT_FIELDS = ['created_at', 'description', 'type', 'user_order'] as const;

export const benefitListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  // SDK 0.47 sends the type filter as `type_filter`; Polar's 2026-04 API calls it `type`. Both are read.
  type: repeated(benefitType).optional(),
  type_filter: repeated(benefitType).optional(),
  id: uuidFilter().optional(),
  exclude_id: uuidFilter().optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(BENEFIT_SORT_FIELDS),
});

/** A benefit grant as Polar lists it (benefit-grants/wire.ts builds it); `customer` is Polar's Customer object. */
export const benefitGrantSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    granted_at: datetime.nullable(),
    is_granted: z.boolean(),
    revoked_at: datetime.nullable(),
    is_revoked: z.boolean(),
    subscription_id: z.string().nullable(),
    order_id: z.string().nullable(),
    customer_id: z.string(),
    member_id: z.string().nullable(),
    benefit_id: z.string(),
    error: z.object({ message: z.string(), type: z.string(), timestamp: z.string() }).nullable(),
    customer: customerSchema,
    member: z.looseObject({ id: z.string() }).nullable(),
    benefit: benefitSchema,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'BenefitGrant' });

export const benefitGrantListSchema = listResource(benefitGrantSchema, 'ListResource_BenefitGrant_');

export type BenefitWire = z.output<typeof benefitSchema>;
export type BenefitCreateBody = z.output<typeof benefitCreateSchema>;
export type BenefitCreateInput = z.input<typeof benefitCreateSchema>;
export type BenefitUpdateBody = z.output<typeof benefitUpdateSchema>;
export type BenefitUpdateInput = z.input<typeof benefitUpdateSchema>;
export type BenefitListQuery = z.output<typeof benefitListQuery>;
export type BenefitListWire = z.output<typeof benefitListSchema>;
export type BenefitVisibility = (typeof BENEFIT_VISIBILITIES)[number];
