import type { Db } from '../kernel/db.js';
import { recordEvent } from '../kernel/outbox.js';
import { activeSubscriptionsOf } from '../subscriptions/state.js';
import { customersRepository, type Customer } from './repository.js';
import type { CustomerStateWire } from './schemas.js';
import { customerStateWire, customerWire } from './wire.js';

/**
 * A customer's state (Polar's CustomerState): the customer plus what they currently have. The one place it is
 * assembled, for `GET /v1/customers/{id}/state` and for every `customer.state_changed` event alike. Returns null
 * for an unknown id; a deleted customer still has a state (the one sent with `customer.deleted`).
 */
export async function customerState(db: Db, customerId: string): Promise<CustomerStateWire | null> {
  const customer = await customersRepository(db).findAnyById(customerId);
  if (!customer) return null;
  // Plug-in points for the modules that own these, each reading with the same `db` (possibly a transaction):
  // - active_subscriptions: the customer's subscriptions whose status is active or trialing, as
  //   CustomerStateSubscription (with their meters);
  // - granted_benefits: benefit grants that are granted and not revoked, as CustomerStateBenefitGrant;
  // - active_meters: the customer's meters with their running consumed/credited balance, as CustomerStateMeter.
  // Until those modules exist a customer has none of them.
  return customerStateWire(customer, { activeSubscriptions: await activeSubscriptionsOf(db, customer.id), grantedBenefits: [], activeMeters: [] });
}

export type CustomerEvent = 'created' | 'updated' | 'deleted';

/**
 * Records `customer.<event>` and then `customer.state_changed` in the caller's transaction, as Polar sends both
 * for every change to a customer. Other modules whose changes alter a customer's state (subscriptions, grants,
 * meters) call `recordStateChanged` alone.
 */
export async function recordCustomerEvent(trx: Db, customer: Customer, event: CustomerEvent, at: Date): Promise<void> {
  await recordEvent(trx, { organizationId: customer.organizationId, type: `customer.${event}`, data: customerWire(customer), at });
  await recordStateChanged(trx, customer.id, at);
}

export async function recordStateChanged(trx: Db, customerId: string, at: Date): Promise<void> {
  const state = await customerState(trx, customerId);
  if (!state) return;
  await recordEvent(trx, { organizationId: state.organization_id, type: 'customer.state_changed', data: state, at });
}
