import { z } from 'zod';
import { benefitPublicSchema } from '../checkout-links/schemas.js';
import { pageQuery, repeated, sortingQuery, uuidFilter } from '../kernel/pagination.js';
import { listResource } from '../polar-api/schemas.js';
import { orderSchema } from '../orders/schemas.js';
import { PRODUCT_BILLING_TYPES } from '../orders/inputs.js';
import { organizationProfileFields } from '../organizations/merchant-schemas.js';
import { productSchema } from '../products/schemas.js';
import { productPriceSchema } from '../products/schemas.js';
import { queryBoolean } from '../subscriptions/inputs.js';
import {
  orderSubscriptionSchema,
  pendingSubscriptionUpdateSchema,
  subscriptionBaseFields,
} from '../subscriptions/schemas.js';

/** What a customer sees in the portal (Polar's Customer* shapes): no merchant metadata, no other customers. */

export const customerOrganizationSchema = z
  .object({
    ...organizationProfileFields,
    customer_portal_settings: z.object({
      usage: z.object({ show: z.boolean() }),
      subscription: z.object({ update_seats: z.boolean(), update_plan: z.boolean() }),
      customer: z.object({ allow_email_change: z.boolean() }),
    }),
  })
  .meta({ id: 'CustomerOrganization' });

/** Polar's CustomerOrderProduct and CustomerSubscriptionProduct, which are the same shape. */
export const customerProductSchema = productSchema
  .omit({ attached_custom_fields: true, benefits: true, metadata: true })
  .extend({ benefits: z.array(benefitPublicSchema), organization: customerOrganizationSchema })
  .meta({ id: 'CustomerOrderProduct' });

export const customerOrderSchema = orderSchema
  .omit({
    metadata: true,
    custom_field_data: true,
    platform_fee_amount: true,
    platform_fee_currency: true,
    customer: true,
    user_id: true,
    product: true,
    discount: true,
    subscription: true,
  })
  .extend({ product: customerProductSchema.nullable(), subscription: orderSubscriptionSchema.nullable() })
  .meta({ id: 'CustomerOrder' });

export const customerSubscriptionSchema = z
  .object({
    ...subscriptionBaseFields,
    product: customerProductSchema,
    prices: z.array(productPriceSchema),
    meters: z.array(z.unknown()),
    pending_update: pendingSubscriptionUpdateSchema.nullable(),
  })
  .omit({ metadata: true })
  .meta({ id: 'CustomerSubscription' });

export const customerOrderListSchema = listResource(customerOrderSchema, 'ListResource_CustomerOrder_');
export const customerSubscriptionListSchema = listResource(
  customerSubscriptionSchema,
  'ListResource_CustomerSubscription_',
);

export type CustomerOrderWire = z.infer<typeof customerOrderSchema>;
export type CustomerSubscriptionWire = z.infer<typeof customerSubscriptionSchema>;
export type CustomerProductWire = z.infer<typeof customerProductSchema>;
export type CustomerOrganizationWire = z.infer<typeof customerOrganizationSchema>;

export const customerOrderListQuery = z.object({
  product_id: uuidFilter().optional(),
  product_billing_type: repeated(z.enum(PRODUCT_BILLING_TYPES)).optional(),
  subscription_id: uuidFilter().optional(),
  ...pageQuery,
  sorting: sortingQuery(['created_at', 'amount', 'net_amount']),
});
export type CustomerOrderListQuery = z.output<typeof customerOrderListQuery>;

export const customerSubscriptionListQuery = z.object({
  product_id: uuidFilter().optional(),
  active: queryBoolean.optional(),
  ...pageQuery,
  sorting: sortingQuery(['started_at', 'amount', 'status'], ['-started_at']),
});
export type CustomerSubscriptionListQuery = z.output<typeof customerSubscriptionListQuery>;
