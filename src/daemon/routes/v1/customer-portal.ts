import type { CoreContext } from '../../../core/context.js';
import { customerPortalCustomerSchema, customerPortalCustomerUpdateSchema } from '../../../core/customers/schemas.js';
import { authenticateCustomer } from '../../auth/customer-auth.js';
import type { V1Api } from './operation.js';

const tag = 'customer_portal';

/** The customer portal API: called by the customer (or the portal page) with a customer session token. */
export function registerCustomerPortalRoutes(api: V1Api, core: CoreContext): void {
  const sessions = core.customerSessions;
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/customers/me',
      operationId: 'customer_portal:customers:get',
      tag,
      summary: 'Get the signed-in customer (customer session token)',
      response: customerPortalCustomerSchema,
    },
    async ({ ctx }) => sessions.portalCustomer(await authenticateCustomer(core, ctx)),
  );
  api.publicOp(
    {
      method: 'patch',
      path: '/v1/customer-portal/customers/me',
      operationId: 'customer_portal:customers:update',
      tag,
      summary: "Update the signed-in customer's billing name, address and tax id",
      body: customerPortalCustomerUpdateSchema,
      response: customerPortalCustomerSchema,
    },
    async ({ ctx, body }) => sessions.updatePortalCustomer(await authenticateCustomer(core, ctx), body),
  );
}
