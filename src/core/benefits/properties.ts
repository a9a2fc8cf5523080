import { z } from 'zod';

/**
 * Each benefit type's `properties`, as Polar validates them on create and update (`Benefit<Type>CreateProperties`)
 * and as it shows them on read (`Benefit<Type>Properties`). Strings Polar leaves unbounded get a generous cap here
 * so one request cannot store megabytes in a property.
 */

export const BENEFIT_TYPES = [
  'custom',
  'discord',
  'github_repository',
  'downloadables',
  'license_keys',
  'meter_credit',
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];

const INT32_MAX = 2147483647;
/** Polar's `PositiveInt` on a 32-bit column: exclusiveMinimum 0, maximum 2^31-1. */
const positiveInt32 = z.number().int().gt(0).max(INT32_MAX);
const uuid = z.uuid();
const boundedText = (max: number) => z.string().max(max);

// ---- custom ----------------------------------------------------------------------------------------------------

export const customCreateProperties = z
  .strictObject({ note: boundedText(5000).nullable().optional() })
  .meta({ id: 'BenefitCustomCreateProperties' });
export const customProperties = z.object({ note: z.string().nullable() }).meta({ id: 'BenefitCustomProperties' });

// ---- discord ---------------------------------------------------------------------------------------------------

/** A Discord snowflake: what a server (guild) or role id looks like. */
const snowflake = z.string().regex(/^\d{15,21}$/, 'Must be a Discord id (15 to 21 digits)');

/**
 * Polar's guild_token is a token its own Discord bot hands out when added to a server. A self-hosted Till has no
 * such bot flow, so the token is the server's (guild's) id itself; the read model shows it as both.
 */
export const discordCreateProperties = z
  .strictObject({ guild_token: snowflake, role_id: snowflake, kick_member: z.boolean() })
  .meta({ id: 'BenefitDiscordCreateProperties' });
export const discordProperties = z
  .object({ guild_id: z.string(), role_id: z.string(), kick_member: z.boolean(), guild_token: z.string() })
  .meta({ id: 'BenefitDiscordProperties' });

// ---- github_repository -----------------------------------------------------------------------------------------

export const GITHUB_PERMISSIONS = ['pull', 'triage', 'push', 'maintain', 'admin'] as const;
export const githubPermission = z.enum(GITHUB_PERMISSIONS);
export const githubRepositoryCreateProperties = z
  .strictObject({
    // GitHub's own limits: logins up to 39 characters, repository names up to 100.
    repository_owner: z
      .string()
      .min(1)
      .max(39)
      .regex(/^[A-Za-z0-9-]+$/, 'Must be a GitHub user or organization login'),
    repository_name: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._-]+$/, 'Must be a GitHub repository name'),
    permission: githubPermission,
  })
  .meta({ id: 'BenefitGitHubRepositoryCreateProperties' });
export const githubRepositoryProperties = z
  .object({ repository_owner: z.string(), repository_name: z.string(), permission: githubPermission })
  .meta({ id: 'BenefitGitHubRepositoryProperties' });

// ---- downloadables ---------------------------------------------------------------------------------------------

export const downloadablesCreateProperties = z
  .strictObject({
    archived: z
      .record(uuid, z.boolean())
      .refine((value) => Object.keys(value).length <= 100, { message: 'At most 100 archived entries' })
      .optional()
      .default({}),
    files: z.array(uuid).min(1).max(100),
  })
  .meta({ id: 'BenefitDownloadablesCreateProperties' });
export const downloadablesProperties = z
  .object({ archived: z.record(z.string(), z.boolean()), files: z.array(z.string()) })
  .meta({ id: 'BenefitDownloadablesProperties' });

// ---- license_keys ----------------------------------------------------------------------------------------------

export const LICENSE_KEY_TIMEFRAMES = ['year', 'month', 'day'] as const;
export const licenseKeyExpiration = z
  .strictObject({ ttl: positiveInt32, timeframe: z.enum(LICENSE_KEY_TIMEFRAMES) })
  .meta({ id: 'BenefitLicenseKeyExpirationProperties' });
export const licenseKeyActivationCreate = z
  .strictObject({ limit: positiveInt32, enable_customer_admin: z.boolean() })
  .meta({ id: 'BenefitLicenseKeyActivationCreateProperties' });
export const licenseKeysCreateProperties = z
  .strictObject({
    prefix: boundedText(64).nullable().optional(),
    expires: licenseKeyExpiration.nullable().optional(),
    activations: licenseKeyActivationCreate.nullable().optional(),
    limit_usage: positiveInt32.nullable().optional(),
  })
  .meta({ id: 'BenefitLicenseKeysCreateProperties' });
export const licenseKeysProperties = z
  .object({
    prefix: z.string().nullable(),
    expires: z.object({ ttl: z.number().int(), timeframe: z.enum(LICENSE_KEY_TIMEFRAMES) }).nullable(),
    activations: z
      .object({ limit: z.number().int(), enable_customer_admin: z.boolean() })
      .meta({ id: 'BenefitLicenseKeyActivationProperties' })
      .nullable(),
    limit_usage: z.number().int().nullable(),
  })
  .meta({ id: 'BenefitLicenseKeysProperties' });

// ---- meter_credit ----------------------------------------------------------------------------------------------

export const meterCreditCreateProperties = z
  .strictObject({ units: positiveInt32, rollover: z.boolean(), meter_id: uuid })
  .meta({ id: 'BenefitMeterCreditCreateProperties' });
export const meterCreditProperties = z
  .object({ units: z.number().int(), rollover: z.boolean(), meter_id: z.string() })
  .meta({ id: 'BenefitMeterCreditProperties' });

// ---- per type --------------------------------------------------------------------------------------------------

export const createPropertiesByType = {
  custom: customCreateProperties,
  discord: discordCreateProperties,
  github_repository: githubRepositoryCreateProperties,
  downloadables: downloadablesCreateProperties,
  license_keys: licenseKeysCreateProperties,
  meter_credit: meterCreditCreateProperties,
} as const;

export const propertiesByType = {
  custom: customProperties,
  discord: discordProperties,
  github_repository: githubRepositoryProperties,
  downloadables: downloadablesProperties,
  license_keys: licenseKeysProperties,
  meter_credit: meterCreditProperties,
} as const;

export type CreateProperties<T extends BenefitType> = z.output<(typeof createPropertiesByType)[T]>;
export type ReadProperties<T extends BenefitType> = z.output<(typeof propertiesByType)[T]>;
export type AnyCreateProperties = CreateProperties<BenefitType>;
export type AnyReadProperties = ReadProperties<BenefitType>;

/** What is stored and shown for the properties a merchant sent: every field present, `null` where absent. */
export function readProperties(type: BenefitType, input: AnyCreateProperties): AnyReadProperties {
  switch (type) {
    case 'custom': {
      const value = input as CreateProperties<'custom'>;
      return { note: value.note ?? null };
    }
    case 'discord': {
      const value = input as CreateProperties<'discord'>;
      return {
        guild_id: value.guild_token,
        role_id: value.role_id,
        kick_member: value.kick_member,
        guild_token: value.guild_token,
      };
    }
    case 'github_repository': {
      const value = input as CreateProperties<'github_repository'>;
      return {
        repository_owner: value.repository_owner,
        repository_name: value.repository_name,
        permission: value.permission,
      };
    }
    case 'downloadables': {
      const value = input as CreateProperties<'downloadables'>;
      const files = [...new Set(value.files)];
      // Every file is listed in `archived`, false unless the merchant archived it, as Polar shows it.
      const archived = Object.fromEntries(files.map((file) => [file, value.archived?.[file] ?? false]));
      return { archived, files };
    }
    case 'license_keys': {
      const value = input as CreateProperties<'license_keys'>;
      return {
        prefix: value.prefix ?? null,
        expires: value.expires ?? null,
        activations: value.activations ?? null,
        limit_usage: value.limit_usage ?? null,
      };
    }
    case 'meter_credit': {
      const value = input as CreateProperties<'meter_credit'>;
      return { units: value.units, rollover: value.rollover, meter_id: value.meter_id };
    }
  }
}
