import { z } from 'zod';
import { benefitGrantListSchema, benefitGrantSchema } from '../benefits/schemas.js';
import { customerPortalCustomerSchema } from '../customers/schemas.js';
import { pageQuery, repeated, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, metadataOutput } from '../polar-api/schemas.js';
import { PRORATION_BEHAVIORS } from '../organizations/merchant-schemas.js';

export { benefitGrantListSchema, benefitGrantSchema };

const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `GET /v1/benefit-grants/` (Polar's filters). */
export const benefitGrantListQuery = z.object({
  organization_id: repeated(z.string().max(64)).optional(),
  customer_id: uuidFilter().optional(),
  benefit_id: uuidFilter().optional(),
  is_granted: queryBoolean.optional(),
  member_id: uuidFilter().optional(),
  ...pageQuery,
});

/** `GET /v1/benefits/{id}/grants`. */
export const benefitGrantsOfBenefitQuery = z.object({
  is_granted: queryBoolean.optional(),
  customer_id: uuidFilter().optional(),
  member_id: uuidFilter().optional(),
  ...pageQuery,
});

const subscriberOrganization = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    proration_behavior: z.enum(PRORATION_BEHAVIORS),
    allow_customer_updates: z.boolean(),
  })
  .meta({ id: 'BenefitSubscriberOrganization' });

/** The benefit as its holder sees it (Polar's Benefit<Type>Subscriber): with its organization. */
export const benefitSubscriberSchema = z
  .object({
    id: z.string(),
    created_at: datetime,
    modified_at: datetime.nullable(),
    type: z.string(),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    is_deleted: z.boolean(),
    organization_id: z.string(),
    metadata: metadataOutput,
    organization: subscriberOrganization,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'BenefitSubscriber' });

export const customerBenefitGrantSchema = z
  .object({
    created_at: datetime,
    modified_at: datetime.nullable(),
    id: z.string(),
    granted_at: datetime.nullable(),
    revoked_at: datetime.nullable(),
    customer_id: z.string(),
    member_id: z.string().nullable(),
    benefit_id: z.string(),
    subscription_id: z.string().nullable(),
    order_id: z.string().nullable(),
    is_granted: z.boolean(),
    is_revoked: z.boolean(),
    error: z.object({ message: z.string(), type: z.string(), timestamp: z.string() }).nullable(),
    customer: customerPortalCustomerSchema,
    benefit: benefitSubscriberSchema,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CustomerBenefitGrant' });

export const customerBenefitGrantListSchema = listResource(
  customerBenefitGrantSchema,
  'ListResource_CustomerBenefitGrant_',
);

export const customerBenefitGrantListQuery = z.object({
  type: z.string().max(64).optional(),
  benefit_id: uuidFilter().optional(),
  order_id: uuidFilter().optional(),
  subscription_id: uuidFilter().optional(),
  ...pageQuery,
});

export type BenefitGrantListQuery = z.output<typeof benefitGrantListQuery>;
export type BenefitGrantsOfBenefitQuery = z.output<typeof benefitGrantsOfBenefitQuery>;
export type CustomerBenefitGrantListQuery = z.output<typeof customerBenefitGrantListQuery>;
export type CustomerBenefitGrantWire = z.infer<typeof customerBenefitGrantSchema>;
export type BenefitGrantWire = z.infer<typeof benefitGrantSchema>;
