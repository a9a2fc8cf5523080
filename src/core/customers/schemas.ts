import { z } from 'zod';
import { repeated, pageQuery, sortingQuery } from '../kernel/pagination.js';
import { datetime, listResource, metadataInput, metadataOutput, organizationIdInput } from '../polar-api/schemas.js';
import { addressInput, addressOutput, taxIdOutput } from './address.js';

/** The /v1 wire shapes of customers, their state and sessions (Polar's schemas; SDK 0.47 parses them strictly). */

export const CUSTOMER_TYPES = ['individual', 'team'] as const;
export type CustomerType = (typeof CUSTOMER_TYPES)[number];

// Polar's EmptyStrToNone: "" means "not given".
const emptyToNull = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === '' ? null : value), schema.nullable().optional());

export const customerEmailInput = z
  .string()
  .max(254)
  .pipe(z.email({ message: 'value is not a valid email address' }));
const nameInput = emptyToNull(z.string().max(256));
const externalIdInput = emptyToNull(z.string().max(256));
const taxIdInput = emptyToNull(z.string().max(64));
const localeInput = emptyToNull(
  z
    .string()
    .max(35)
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, { message: 'Locale must be an IETF BCP 47 language tag' }),
);

export const customerCreateSchema = z
  .strictObject({
    type: z.enum(CUSTOMER_TYPES).default('individual'),
    email: customerEmailInput.nullable().optional(),
    name: nameInput,
    external_id: externalIdInput,
    billing_address: addressInput.nullable().optional(),
    tax_id: taxIdInput,
    locale: localeInput,
    metadata: metadataInput.optional(),
    organization_id: organizationIdInput,
  })
  .superRefine((body, ctx) => {
    if (body.type === 'individual' && !body.email)
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        path: ['email'],
        message: 'Field required',
        input: undefined,
      });
  })
  .meta({ id: 'CustomerCreate' });

const updateFields = {
  email: customerEmailInput.nullable().optional(),
  name: nameInput,
  billing_address: addressInput.nullable().optional(),
  tax_id: taxIdInput,
  locale: localeInput,
  metadata: metadataInput.optional(),
};

export const customerUpdateSchema = z
  .strictObject({ ...updateFields, external_id: externalIdInput, type: z.enum(CUSTOMER_TYPES).nullable().optional() })
  .meta({ id: 'CustomerUpdate' });

export const customerUpdateExternalSchema = z.strictObject(updateFields).meta({ id: 'CustomerUpdateExternalID' });

export type CustomerCreateInput = z.output<typeof customerCreateSchema>;
export type CustomerUpdateInput = z.output<typeof customerUpdateSchema>;

export const customerSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    metadata: metadataOutput,
    external_id: z.string().nullable(),
    email: z.string().nullable(),
    email_verified: z.boolean(),
    type: z.enum(CUSTOMER_TYPES),
    name: z.string().nullable(),
    billing_name: z.string().nullable(),
    billing_address: addressOutput.nullable(),
    tax_id: taxIdOutput.nullable(),
    locale: z.string().nullable(),
    organization_id: z.string(),
    default_payment_method_id: z.string().nullable(),
    deleted_at: datetime.nullable(),
    first_user_event_at: datetime.nullable(),
    avatar_url: z.string(),
  })
  .meta({ id: 'Customer' });

export type CustomerWire = z.infer<typeof customerSchema>;

export const customerListSchema = listResource(customerSchema, 'ListResource_Customer_');

export const customerListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  email: z.string().max(320).optional(),
  query: z.string().max(256).optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'email', 'name', 'customer_name']),
});

export const externalIdParams = z.object({ external_id: z.string().min(1).max(256) });
export const deleteQuery = z.object({
  anonymize: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

/** A subscription's period, trial and cancellation dates, as every Polar subscription shape lists them. */
export const subscriptionPeriodFields = {
  current_period_start: datetime,
  current_period_end: datetime,
  trial_start: datetime.nullable(),
  trial_end: datetime.nullable(),
  cancel_at_period_end: z.boolean(),
  canceled_at: datetime.nullable(),
  started_at: datetime.nullable(),
  ends_at: datetime.nullable(),
};

// What later modules put in a customer's state: Polar's CustomerStateSubscription, CustomerStateBenefitGrant and
// CustomerStateMeter, so the documented shape is fixed before they exist.
export const customerStateSubscriptionSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    metadata: metadataOutput,
    custom_field_data: z.record(z.string(), z.unknown()).optional(),
    status: z.enum(['active', 'trialing']),
    amount: z.number().int(),
    currency: z.string(),
    recurring_interval: z.string(),
    ...subscriptionPeriodFields,
    product_id: z.string(),
    discount_id: z.string().nullable(),
    meters: z.array(
      z.object({
        id: z.string(),
        created_at: datetime,
        modified_at: datetime.nullable(),
        consumed_units: z.number(),
        credited_units: z.number().int(),
        amount: z.number().int(),
        meter_id: z.string(),
      }),
    ),
  })
  .meta({ id: 'CustomerStateSubscription' });

export const customerStateBenefitGrantSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    granted_at: datetime,
    benefit_id: z.string(),
    benefit_type: z.string(),
    benefit_metadata: metadataOutput,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CustomerStateBenefitGrant' });

export const customerStateMeterSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    meter_id: z.string(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
  })
  .meta({ id: 'CustomerStateMeter' });

export const customerStateSchema = customerSchema
  .extend({
    active_subscriptions: z.array(customerStateSubscriptionSchema),
    granted_benefits: z.array(customerStateBenefitGrantSchema),
    active_meters: z.array(customerStateMeterSchema),
  })
  .meta({ id: 'CustomerState' });

export type CustomerStateWire = z.infer<typeof customerStateSchema>;

export const customerSessionCreateSchema = z
  .strictObject({
    customer_id: z.uuid({ message: 'Input should be a valid UUID' }).optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    return_url: z
      .url({ protocol: /^https?$/, message: 'Input should be a valid URL' })
      .min(1)
      .max(2083)
      .nullable()
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (!body.customer_id && !body.external_customer_id) {
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        path: ['customer_id'],
        message: 'Field required',
        input: undefined,
      });
    }
  })
  .meta({ id: 'CustomerSessionCreate' });

export const customerSessionSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    token: z.string(),
    expires_at: datetime,
    return_url: z.string().nullable(),
    customer_portal_url: z.string(),
    customer_id: z.string(),
    customer: customerSchema,
  })
  .meta({ id: 'CustomerSession' });

export const customerPortalCustomerSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    email: z.string().nullable(),
    email_verified: z.boolean(),
    name: z.string().nullable(),
    billing_name: z.string().nullable(),
    billing_address: addressOutput.nullable(),
    tax_id: taxIdOutput.nullable(),
    oauth_accounts: z.record(z.string(), z.object({ account_id: z.string(), account_username: z.string().nullable() })),
    default_payment_method_id: z.string().nullable(),
    type: z.enum(CUSTOMER_TYPES).nullable(),
    locale: z.string().nullable(),
  })
  .meta({ id: 'CustomerPortalCustomer' });

export const customerPortalCustomerUpdateSchema = z
  .strictObject({
    billing_name: nameInput,
    billing_address: addressInput.nullable().optional(),
    tax_id: taxIdInput,
    // One of the customer's saved payment methods; null is refused, as in Polar (a default cannot be unset).
    default_payment_method_id: z.uuid().nullable().optional(),
  })
  .meta({ id: 'CustomerPortalCustomerUpdate' });
