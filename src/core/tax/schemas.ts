import { z } from 'zod';
import { datetime, listResource } from '../polar-api/schemas.js';

/**
 * Tax rates are Till's own resource (Polar computes tax through Stripe Tax, which a self-hosted daemon cannot call):
 * one rate per country, or per state within a country, exclusive of price.
 */
export const taxRateSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    organization_id: z.string(),
    country: z.string(),
    state: z.string().nullable(),
    basis_points: z.number().int(),
    name: z.string(),
  })
  .meta({ id: 'TaxRate' });

export const taxRateCreateSchema = z
  .strictObject({
    organization_id: z.string().min(1).max(64).nullable().optional(),
    country: z.string().regex(/^[A-Z]{2}$/, 'Country must be an ISO 3166-1 alpha-2 code in upper case, e.g. DE'),
    state: z
      .string()
      .regex(/^[A-Z0-9]{1,3}$/, 'State must be an ISO 3166-2 subdivision code without the country, e.g. CA')
      .nullable()
      .optional(),
    basis_points: z.number().int().min(0).max(10_000),
    name: z.string().min(1).max(64),
  })
  .meta({ id: 'TaxRateCreate' });

export const taxRateUpdateSchema = z
  .strictObject({
    basis_points: z.number().int().min(0).max(10_000).optional(),
    name: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'TaxRateUpdate' });

export const taxRateListSchema = listResource(taxRateSchema, 'ListResource_TaxRate_');

export type TaxRateWire = z.infer<typeof taxRateSchema>;
