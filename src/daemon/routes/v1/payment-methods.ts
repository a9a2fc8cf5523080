import type { CoreContext } from '../../../core/context.js';
import { externalIdParams } from '../../../core/customers/schemas.js';
import {
  customerPaymentMethodCreateResponseSchema,
  customerPaymentMethodCreateSchema,
  customerPaymentMethodListSchema,
  paymentMethodConfirmSchema,
  paymentMethodListQuery,
  paymentMethodListSchema,
} from '../../../core/payment-methods/schemas.js';
import { fieldError } from '../../../core/polar-api/errors.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { readScopes } from '../../../core/polar-api/scopes.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

/**
 * Saved payment methods. The merchant can only list a customer's (Polar has no merchant route to add or delete one);
 * the customer lists, adds and deletes their own in the portal, and picks the default with PATCH customers/me.
 */
export function registerPaymentMethodsRoutes(api: V1Api, core: CoreContext): void {
  const service = core.paymentMethods;
  const who = (ctx: Parameters<typeof authenticateCustomer>[1]) => authenticateCustomer(core, ctx);

  api.op(
    {
      method: 'get',
      path: '/v1/customers/:id/payment-methods',
      operationId: 'customers:list_payment_methods',
      tag: 'customers',
      summary: "List a customer's saved payment methods, newest first",
      scopes: readScopes('customers'),
      params: idParams,
      query: paymentMethodListQuery,
      response: paymentMethodListSchema,
    },
    ({ actor, params, query }) => service.list(actor, { id: params.id }, query),
  );
  api.op(
    {
      method: 'get',
      path: '/v1/customers/external/:external_id/payment-methods',
      operationId: 'customers:list_payment_methods_external',
      tag: 'customers',
      summary: "List a customer's saved payment methods by external id",
      scopes: readScopes('customers'),
      params: externalIdParams,
      query: paymentMethodListQuery,
      response: paymentMethodListSchema,
    },
    ({ actor, params, query }) => service.list(actor, { externalId: params.external_id }, query),
  );

  const tag = 'customer_portal';
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/customers/me/payment-methods',
      operationId: 'customer_portal:customers:list_payment_methods',
      tag,
      summary: "List the signed-in customer's saved payment methods, newest first",
      query: paymentMethodListQuery,
      response: customerPaymentMethodListSchema,
    },
    async ({ ctx, query }) => service.listOwn(await who(ctx), query),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/customers/me/payment-methods',
      operationId: 'customer_portal:customers:add_payment_method',
      tag,
      summary: 'Save a card (with the sandbox: a test card token such as tok_visa); set_default makes it the default',
      body: customerPaymentMethodCreateSchema,
      response: customerPaymentMethodCreateResponseSchema,
      status: 201,
    },
    async ({ ctx, body }) => service.add(await who(ctx), body),
  );
  api.publicOp(
    {
      method: 'post',
      path: '/v1/customer-portal/customers/me/payment-methods/confirm',
      operationId: 'customer_portal:customers:confirm_payment_method',
      tag,
      summary: 'Confirm a card that needed the customer to act (the sandbox never does: every setup intent is unknown)',
      body: paymentMethodConfirmSchema,
      response: customerPaymentMethodCreateResponseSchema,
      status: 201,
    },
    async ({ ctx }) => {
      await who(ctx);
      throw fieldError(['body', 'setup_intent_id'], 'Invalid setup_intent_id.', 'invalid');
    },
  );
  api.publicOp(
    {
      method: 'delete',
      path: '/v1/customer-portal/customers/me/payment-methods/:id',
      operationId: 'customer_portal:customers:delete_payment_method',
      tag,
      summary: 'Delete a saved card; subscriptions it bills move to another card, or the delete is refused',
      params: idParams,
      status: 204,
    },
    async ({ ctx, params }) => {
      await service.remove(await who(ctx), params.id);
      return undefined;
    },
  );
}
