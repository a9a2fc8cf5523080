import type { CoreContext } from '../../../core/context.js';
import { customerSessionCreateSchema, customerSessionSchema } from '../../../core/customers/schemas.js';
import { writeScopes } from '../../../core/polar-api/scopes.js';
import type { V1Api } from './operation.js';

export function registerCustomerSessionsRoutes(api: V1Api, core: CoreContext): void {
  api.op(
    {
      method: 'post',
      path: '/v1/customer-sessions/',
      operationId: 'customer-sessions:create',
      tag: 'customer-sessions',
      summary: 'Create a customer portal session (the token is valid for one hour)',
      scopes: writeScopes('customer_sessions'),
      body: customerSessionCreateSchema,
      response: customerSessionSchema,
      status: 201,
    },
    ({ actor, body }) => core.customerSessions.create(actor, body),
  );
}
