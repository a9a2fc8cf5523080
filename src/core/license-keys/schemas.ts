import { z } from 'zod';
import { customerSchema } from '../customers/schemas.js';
import { pageQuery, repeated, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource } from '../polar-api/schemas.js';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export const LICENSE_KEY_STATUSES = ['granted', 'revoked', 'disabled'] as const;
export type LicenseKeyStatus = (typeof LICENSE_KEY_STATUSES)[number];

export const licenseKeyStatus = z.enum(LICENSE_KEY_STATUSES).meta({ id: 'LicenseKeyStatus' });

/** Polar's activation meta and conditions: flat values, strings of 1 to 500 characters. */
const activationValues = z.record(
  z.string().max(100),
  z.union([z.string().min(1).max(500), z.number().int(), z.number(), z.boolean()]),
);
const activationValuesOutput = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
/** Keys are opaque to Till; a bound keeps a hostile body from becoming a huge digest input. */
const keyInput = z.string().min(1).max(512);

export const licenseKeyActivationBaseSchema = z
  .object({
    id: z.string(),
    license_key_id: z.string(),
    label: z.string(),
    meta: activationValuesOutput,
    created_at: datetime,
    modified_at: datetime.nullable(),
  })
  .meta({ id: 'LicenseKeyActivationBase' });

const licenseKeyFields = {
  id: z.string(),
  created_at: datetime,
  modified_at: datetime.nullable(),
  organization_id: z.string(),
  customer_id: z.string(),
  customer: customerSchema,
  benefit_id: z.string(),
  key: z.string(),
  display_key: z.string(),
  status: licenseKeyStatus,
  limit_activations: z.number().int().nullable(),
  usage: z.number().int(),
  limit_usage: z.number().int().nullable(),
  validations: z.number().int(),
  last_validated_at: datetime.nullable(),
  expires_at: datetime.nullable(),
};

export const licenseKeyReadSchema = z.object(licenseKeyFields).meta({ id: 'LicenseKeyRead' });
export const licenseKeyWithActivationsSchema = z
  .object({ ...licenseKeyFields, activations: z.array(licenseKeyActivationBaseSchema) })
  .meta({ id: 'LicenseKeyWithActivations' });
export const validatedLicenseKeySchema = z
  .object({ ...licenseKeyFields, activation: licenseKeyActivationBaseSchema.nullable() })
  .meta({ id: 'ValidatedLicenseKey' });
export const licenseKeyActivationReadSchema = z
  .object({ ...licenseKeyActivationBaseSchema.shape, license_key: licenseKeyReadSchema })
  .meta({ id: 'LicenseKeyActivationRead' });

export const licenseKeyListSchema = listResource(licenseKeyReadSchema, 'ListResource_LicenseKeyRead_');

export const licenseKeyListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  benefit_id: uuidFilter().optional(),
  ...pageQuery,
});

export const customerLicenseKeyListQuery = z.object({ benefit_id: z.string().max(64).optional(), ...pageQuery });

const int32 = z.number().int().min(INT32_MIN).max(INT32_MAX);
const positiveInt32 = z.number().int().gt(0).max(INT32_MAX);

export const licenseKeyUpdateSchema = z
  .strictObject({
    status: licenseKeyStatus.nullable().optional(),
    usage: int32.optional(),
    limit_activations: positiveInt32.nullable().optional(),
    limit_usage: positiveInt32.nullable().optional(),
    expires_at: datetime.nullable().optional(),
  })
  .meta({ id: 'LicenseKeyUpdate' });

export const licenseKeyValidateSchema = z
  .strictObject({
    key: keyInput,
    organization_id: z.string().min(1).max(64),
    activation_id: z.uuid().nullable().optional(),
    benefit_id: z.uuid().nullable().optional(),
    customer_id: z.uuid().nullable().optional(),
    increment_usage: z.number().int().min(0).max(INT32_MAX).nullable().optional(),
    conditions: activationValues.optional(),
  })
  .meta({ id: 'LicenseKeyValidate' });

export const licenseKeyActivateSchema = z
  .strictObject({
    key: keyInput,
    organization_id: z.string().min(1).max(64),
    label: z.string().max(256),
    conditions: activationValues.optional(),
    meta: activationValues.optional(),
  })
  .meta({ id: 'LicenseKeyActivate' });

export const licenseKeyDeactivateSchema = z
  .strictObject({ key: keyInput, organization_id: z.string().min(1).max(64), activation_id: z.uuid() })
  .meta({ id: 'LicenseKeyDeactivate' });

export const activationParams = z.object({ id: z.string().min(1).max(64), activation_id: z.string().min(1).max(64) });

export type LicenseKeyReadWire = z.infer<typeof licenseKeyReadSchema>;
export type LicenseKeyWithActivationsWire = z.infer<typeof licenseKeyWithActivationsSchema>;
export type ValidatedLicenseKeyWire = z.infer<typeof validatedLicenseKeySchema>;
export type LicenseKeyActivationBaseWire = z.infer<typeof licenseKeyActivationBaseSchema>;
export type LicenseKeyActivationReadWire = z.infer<typeof licenseKeyActivationReadSchema>;
export type LicenseKeyListQuery = z.output<typeof licenseKeyListQuery>;
export type CustomerLicenseKeyListQuery = z.output<typeof customerLicenseKeyListQuery>;
export type LicenseKeyUpdateInput = z.output<typeof licenseKeyUpdateSchema>;
export type LicenseKeyValidateInput = z.output<typeof licenseKeyValidateSchema>;
export type LicenseKeyActivateInput = z.output<typeof licenseKeyActivateSchema>;
export type LicenseKeyDeactivateInput = z.output<typeof licenseKeyDeactivateSchema>;
