import { z } from 'zod';
import { pageQuery } from '../kernel/pagination.js';
import { datetime, listResource } from '../polar-api/schemas.js';

/** Polar's saved payment methods: the merchant's view (`PaymentMethod`) and the customer's own (`CustomerPaymentMethod`). */

export const paymentMethodCardMetadataSchema = z
  .object({
    brand: z.string(),
    last4: z.string(),
    exp_month: z.number().int(),
    exp_year: z.number().int(),
    wallet: z.string().nullable(),
  })
  .meta({ id: 'PaymentMethodCardMetadata' });

const cardFields = {
  id: z.uuid(),
  created_at: datetime,
  modified_at: datetime.nullable(),
  // Polar's SDK knows only "stripe"; the configured processor (the sandbox by default) serves it.
  processor: z.literal('stripe'),
  customer_id: z.uuid(),
  type: z.literal('card'),
  method_metadata: paymentMethodCardMetadataSchema,
};

/** The merchant's view (`GET /v1/customers/{id}/payment-methods`), which says which card is the default. */
export const customerPaymentMethodCardSchema = z
  .object({ ...cardFields, is_default: z.boolean() })
  .meta({ id: 'CustomerPaymentMethodCard' });

/** The customer's view in the portal; the default is `default_payment_method_id` on the portal's customer. */
export const paymentMethodCardSchema = z.object(cardFields).meta({ id: 'PaymentMethodCard' });

export const paymentMethodListSchema = listResource(customerPaymentMethodCardSchema, 'ListResource_PaymentMethod_');
export const customerPaymentMethodListSchema = listResource(
  paymentMethodCardSchema,
  'ListResource_CustomerPaymentMethod_',
);

export const paymentMethodListQuery = z.object({ ...pageQuery });
export type PaymentMethodListQuery = z.output<typeof paymentMethodListQuery>;

/**
 * Polar's `CustomerPaymentMethodCreate`. The sandbox takes a test card token (`tok_visa`) as the confirmation token;
 * it never needs the customer to act, so `return_url` is accepted and unused.
 */
export const customerPaymentMethodCreateSchema = z
  .strictObject({
    confirmation_token_id: z.string().min(1).max(255),
    set_default: z.boolean(),
    return_url: z.string().min(1).max(2048),
  })
  .meta({ id: 'CustomerPaymentMethodCreate' });
export type CustomerPaymentMethodCreateInput = z.output<typeof customerPaymentMethodCreateSchema>;

/** Polar's `CustomerPaymentMethodCreateResponse`; the sandbox always answers `succeeded`, never `requires_action`. */
export const customerPaymentMethodCreateResponseSchema = z
  .object({ status: z.literal('succeeded'), payment_method: paymentMethodCardSchema })
  .meta({ id: 'CustomerPaymentMethodCreateSucceededResponse' });

export type PaymentMethodWire = z.infer<typeof customerPaymentMethodCardSchema>;
export type CustomerPaymentMethodWire = z.infer<typeof paymentMethodCardSchema>;

/** Polar's `CustomerPaymentMethodConfirm`, for a card that needed the customer to act (never, with the sandbox). */
export const paymentMethodConfirmSchema = z
  .strictObject({ setup_intent_id: z.string().min(1).max(255), set_default: z.boolean() })
  .meta({ id: 'CustomerPaymentMethodConfirm' });
