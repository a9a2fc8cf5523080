import type { CoreContext } from '../../../core/context.js';
import {
  customerOrderListQuery,
  customerOrderListSchema,
  customerOrderSchema,
  customerSubscriptionListQuery,
  customerSubscriptionListSchema,
  customerSubscriptionSchema,
} from '../../../core/customer-portal/schemas.js';
import { idParams } from '../../../core/polar-api/schemas.js';
import { isCustomerSubscriptionChange } from '../../../core/subscription-changes/service.js';
import { customerSubscriptionUpdateSchema } from '../../../core/subscriptions/inputs.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

const tag = 'customer_portal';

/** The customer portal's orders and subscriptions, called with a customer session token. */
export function registerCustomerPortalBillingRoutes(api: V1Api, core: CoreContext): void {
  const portal = core.customerPortal;
  const who = (ctx: Parameters<typeof authenticateCustomer>[1]) => authenticateCustomer(core, ctx);

  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/orders/',
      operationId: 'customer_portal:orders:list',
      tag,
      summary: "List the signed-in customer's orders",
      query: customerOrderListQuery,
      response: customerOrderListSchema,
    },
    async ({ ctx, query }) => portal.listOrders(await who(ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/orders/:id',
      operationId: 'customer_portal:orders:get',
      tag,
      summary: "Get one of the signed-in customer's orders",
      params: idParams,
      response: customerOrderSchema,
    },
    async ({ ctx, params }) => portal.getOrder(await who(ctx), params.id),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/subscriptions/',
      operationId: 'customer_portal:subscriptions:list',
      tag,
      summary: "List the signed-in customer's subscriptions",
      query: customerSubscriptionListQuery,
      response: customerSubscriptionListSchema,
    },
    async ({ ctx, query }) => portal.listSubscriptions(await who(ctx), query),
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/subscriptions/:id',
      operationId: 'customer_portal:subscriptions:get',
      tag,
      summary: "Get one of the signed-in customer's subscriptions",
      params: idParams,
      response: customerSubscriptionSchema,
    },
    async ({ ctx, params }) => portal.getSubscription(await who(ctx), params.id),
  );
  api.publicOp(
    {
      method: 'patch',
      path: '/v1/customer-portal/subscriptions/:id',
      operationId: 'customer_portal:subscriptions:update',
      tag,
      summary:
        'Cancel at the period end or uncancel (with a reason and comment), change plan, pause or resume a subscription',
      params: idParams,
      body: customerSubscriptionUpdateSchema,
      response: customerSubscriptionSchema,
    },
    async ({ ctx, params, body }) =>
      isCustomerSubscriptionChange(body)
        ? core.subscriptionChanges.updateForCustomer(await who(ctx), params.id, body)
        : portal.updateSubscription(await who(ctx), params.id, body),
  );
  api.publicOp(
    {
      method: 'delete',
      path: '/v1/customer-portal/subscriptions/:id',
      operationId: 'customer_portal:subscriptions:cancel',
      tag,
      summary: 'Cancel a subscription at the end of its period',
      params: idParams,
      response: customerSubscriptionSchema,
    },
    async ({ ctx, params }) => portal.cancelSubscription(await who(ctx), params.id),
  );
}
