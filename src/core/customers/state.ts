import type { Db } from '../database/index.js';
import { recordEvents, type OutboxEvent } from '../kernel/outbox.js';
import { grantedBenefitsOf, grantedBenefitsOfMany } from './grants-repository.js';
import { customersRepository, type Customer } from './repository.js';
import type { CustomerStateWire } from './schemas.js';
import { customerStateWire, customerWire } from './wire.js';

/**
 * Reads a customer's active subscriptions as CustomerState lists them. Subscriptions (and, later, grants and meters)
 * embed customers and so sit above them: the core hands this reader in (subscriptions/state.ts implements it).
 */
export type ActiveSubscriptionsReader = ((
  db: Db,
  customerId: string,
) => Promise<CustomerStateWire['active_subscriptions']>) & {
  /** The customer's meters (`active_meters`), which also sit above customers; without it, states list none. */
  activeMeters?: ActiveMetersReader;
};

/** Reads a customer's meters as CustomerState lists them (meters/customer-meters.ts implements it). */
export type ActiveMetersReader = (
  db: Db,
  customerId: string,
  customer?: Customer,
) => Promise<CustomerStateWire['active_meters']>;

/**
 * A customer's state (Polar's CustomerState): the customer plus what they currently have. The one place it is
 * assembled, for `GET /v1/customers/{id}/state` and for every `customer.state_changed` event alike. Returns null
 * for an unknown id; a deleted customer still has a state (the one sent with `customer.deleted`).
 */
export async function customerState(
  db: Db,
  customerId: string,
  activeSubscriptionsOf: ActiveSubscriptionsReader,
  activeMetersOf?: ActiveMetersReader,
): Promise<CustomerStateWire | null> {
  const customer = await customersRepository(db).findAnyById(customerId);
  if (!customer) return null;
  const readMeters = activeMetersOf ?? activeSubscriptionsOf.activeMeters;
  const meters = readMeters ? await readMeters(db, customer.id, customer) : [];
  const subscriptions = await activeSubscriptionsOf(db, customer.id);
  return stateOf(customer, subscriptions, await grantedBenefitsOf(db, customer.id), meters);
}

/**
 * The state of a customer already in hand, given their active subscriptions and live grants (a caller that just
 * wrote them need not read them back; a customer created a moment ago has none).
 */
export function stateOf(
  customer: Customer,
  activeSubscriptions: CustomerStateWire['active_subscriptions'],
  grantedBenefits: CustomerStateWire['granted_benefits'] = [],
  activeMeters: CustomerStateWire['active_meters'] = [],
): CustomerStateWire {
  // `active_meters` comes from the meters' running aggregates (the readers, above customers, hand them in).
  return customerStateWire(customer, { activeSubscriptions, grantedBenefits, activeMeters });
}

export { grantedBenefitsOf, grantedBenefitsOfMany };

export type CustomerEvent = 'created' | 'updated' | 'deleted';

/**
 * Records `customer.<event>` and then `customer.state_changed` in the caller's transaction, as Polar sends both
 * for every change to a customer. Other modules whose changes alter a customer's state (subscriptions, grants,
 * meters) call `recordStateChanged` alone. `customer` is the row as just written.
 */
export async function recordCustomerEvent(
  trx: Db,
  customer: Customer,
  event: CustomerEvent,
  at: Date,
  activeSubscriptionsOf: ActiveSubscriptionsReader,
): Promise<void> {
  // A customer created a moment ago has no subscriptions or grants yet.
  const subscriptions = event === 'created' ? [] : await activeSubscriptionsOf(trx, customer.id);
  const grants = event === 'created' ? [] : await grantedBenefitsOf(trx, customer.id);
  // A new customer may already have meters: events sent by their external id before they existed.
  const meters = activeSubscriptionsOf.activeMeters
    ? await activeSubscriptionsOf.activeMeters(trx, customer.id, customer)
    : [];
  await recordEvents(trx, [
    customerEvent(customer, event, at),
    stateChangedEvent(stateOf(customer, subscriptions, grants, meters), at),
  ]);
}

export async function recordStateChanged(
  trx: Db,
  customerId: string,
  at: Date,
  activeSubscriptionsOf: ActiveSubscriptionsReader,
): Promise<void> {
  const state = await customerState(trx, customerId, activeSubscriptionsOf);
  if (state) await recordEvents(trx, [stateChangedEvent(state, at)]);
}

export function customerEvent(customer: Customer, event: CustomerEvent, at: Date): OutboxEvent {
  return { organizationId: customer.organizationId, type: `customer.${event}`, data: customerWire(customer), at };
}

export function stateChangedEvent(state: CustomerStateWire, at: Date): OutboxEvent {
  return { organizationId: state.organization_id, type: 'customer.state_changed', data: state, at };
}
