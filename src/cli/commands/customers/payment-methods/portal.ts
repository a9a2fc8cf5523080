import type { z } from 'zod';
import type { customerSessionSchema } from '../../../../core/customers/schemas.js';
import { call, type Auth, type Target } from '../../../context.js';

/**
 * Polar's merchant API can only list a customer's saved cards; adding and deleting one are the customer's own
 * portal operations. The CLI reaches them the way a merchant's site would: through a customer session it creates
 * for that customer (`POST /v1/customer-sessions/`, scope customer_sessions:write), used once.
 */
export async function asCustomer(target: Target, customerId: string): Promise<Auth> {
  const session = await call<z.output<typeof customerSessionSchema>>(target, 'POST', '/v1/customer-sessions/', {
    body: { customer_id: customerId },
  });
  return { kind: 'customer', token: session.token };
}

export const PORTAL_METHODS = '/v1/customer-portal/customers/me/payment-methods';
