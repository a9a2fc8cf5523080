import { z } from 'zod';
import { datetime, listResource } from '../polar-api/schemas.js';
import { SCOPES } from '../polar-api/scopes.js';

export const scopeSchema = z.enum(SCOPES).meta({ id: 'AvailableScope' });

export const organizationAccessTokenSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    scopes: z.array(scopeSchema),
    expires_at: datetime.nullable(),
    comment: z.string(),
    last_used_at: datetime.nullable(),
    organization_id: z.string(),
  })
  .meta({ id: 'OrganizationAccessToken' });

/** An ISO 8601 duration (`P30D`, `PT12H`, `P1W`) or a number of seconds, as Pydantic reads Polar's `expires_in`. */
export const durationInput = z.union([z.string().max(64), z.number().int().positive()]).transform((value, ctx) => {
  const seconds = typeof value === 'number' ? value : parseIsoDuration(value);
  if (seconds === null || seconds <= 0) {
    ctx.addIssue({ code: 'custom', message: 'Input should be a valid duration, e.g. P30D or PT12H' });
    return z.NEVER;
  }
  return seconds;
});

export const organizationAccessTokenCreateSchema = z
  .strictObject({
    organization_id: z.string().min(1).max(64).nullable().optional(),
    comment: z.string().min(1).max(255),
    expires_in: durationInput.nullable().optional(),
    scopes: z.array(scopeSchema).max(SCOPES.length),
  })
  .meta({ id: 'OrganizationAccessTokenCreate' });

export const organizationAccessTokenUpdateSchema = z
  .strictObject({
    comment: z.string().min(1).max(255).nullable().optional(),
    scopes: z.array(scopeSchema).max(SCOPES.length).nullable().optional(),
  })
  .meta({ id: 'OrganizationAccessTokenUpdate' });

export const organizationAccessTokenCreateResponseSchema = z
  .object({ organization_access_token: organizationAccessTokenSchema, token: z.string() })
  .meta({ id: 'OrganizationAccessTokenCreateResponse' });

export const organizationAccessTokenListSchema = listResource(
  organizationAccessTokenSchema,
  'ListResource_OrganizationAccessToken_',
);

export type OrganizationAccessTokenWire = z.infer<typeof organizationAccessTokenSchema>;

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Seconds in an ISO 8601 duration; months count 30 days and years 365, as Pydantic's timedelta does not allow them. */
export function parseIsoDuration(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return null;
  const [years, months, weeks, days, hours, minutes, seconds] = match
    .slice(1)
    .map((part) => Number(part ?? 0)) as number[];
  return (((years! * 365 + months! * 30 + weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60 + seconds!;
}
