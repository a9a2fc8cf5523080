import type { Context } from 'koa';
import type { CoreContext } from '../../core/context.js';
import type { CustomerActor } from '../../core/customers/sessions.js';
import { unauthorized } from '../../core/polar-api/errors.js';
import { bearerOf } from './credentials.js';

/**
 * Authenticates a customer portal request (`/v1/customer-portal/*`): `Authorization: Bearer <customer session
 * token>`, as Polar's SDK sends it. Unknown, expired or deleted-customer tokens are Polar's 401. Merchant tokens
 * are not accepted here, and customer tokens are not accepted by the merchant routes.
 */
export async function authenticateCustomer(core: CoreContext, ctx: Context): Promise<CustomerActor> {
  const token = bearerOf(ctx);
  const actor = token ? await core.customerSessions.authenticate(token) : null;
  if (!actor) throw unauthorized();
  return actor;
}
