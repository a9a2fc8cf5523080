import { randomUUID } from 'node:crypto';
import type { Db } from '../database/index.js';
import type { Metadata } from '../polar-api/schemas.js';
import type { Address, TaxId } from './address.js';
import { customersRepository, type Customer } from './repository.js';

export interface CustomerDetails {
  organizationId: string;
  externalId?: string | null;
  email: string;
  name?: string | null;
  /** Already validated (addressInput). */
  billingAddress?: Address | null;
  /** Already validated against the address's country (validateTaxId). */
  taxId?: TaxId | null;
  /** Merged into the customer's metadata, as a checkout's customer_metadata is. */
  metadata?: Metadata;
}

/**
 * The customer a purchase belongs to (checkout confirmation): found by external id, else by e-mail, else created.
 * A found customer takes the details given (name, address, tax id, an external id it lacked, metadata merged).
 * Writes the row only; the caller records `customer.created` or `customer.updated` (when `created` or `updated`)
 * with the rest of its events.
 *
 * In two steps, so the caller can send the insert with other statements of its trip: the insert of
 * `customerToCreate` is tried first (`customersRepository.insertIfAbsent`): most purchases are by new customers, for
 * whom that is the only statement. When a live customer already has the address or external id (or a concurrent
 * checkout just created it) the insert does nothing rather than fail, so the caller's transaction goes on without a
 * savepoint, and `settleCustomer` finds them.
 */
export function customerToCreate(details: CustomerDetails, at: Date): Customer {
  return {
    id: randomUUID(),
    organizationId: details.organizationId,
    type: 'individual',
    externalId: details.externalId ?? null,
    email: details.email.toLowerCase(),
    emailVerified: false,
    name: details.name ?? null,
    billingName: null,
    billingAddress: details.billingAddress ?? null,
    taxId: details.taxId ?? null,
    locale: null,
    metadata: details.metadata ?? {},
    createdAt: at,
    modifiedAt: null,
    deletedAt: null,
  };
}

/** After trying to insert `candidate`: the customer it made, or the one that was there, updated with the details. */
export async function settleCustomer(
  trx: Db,
  details: CustomerDetails,
  candidate: Customer,
  inserted: boolean,
  at: Date,
): Promise<{ customer: Customer; created: boolean; updated: boolean }> {
  if (inserted) return { customer: candidate, created: true, updated: false };
  const repo = customersRepository(trx);
  const existing =
    (details.externalId ? await repo.findByExternalId([details.organizationId], details.externalId) : null) ??
    (await repo.findByEmail(details.organizationId, details.email.toLowerCase()));
  if (!existing)
    throw new Error('The customer could not be inserted, yet no live customer has its e-mail address or external id.');
  return updateWithDetails(trx, existing, details, at);
}

/** A known customer takes a purchase's details (name, address, tax id, an external id it lacked, metadata merged). */
export async function updateWithDetails(trx: Db, found: Customer, details: CustomerDetails, at: Date) {
  const next: Customer = {
    ...found,
    name: details.name ?? found.name,
    billingAddress: details.billingAddress ?? found.billingAddress,
    taxId: details.taxId ?? found.taxId,
    externalId: found.externalId ?? details.externalId ?? null,
    metadata: { ...found.metadata, ...details.metadata },
  };
  const changed = JSON.stringify({ ...next, modifiedAt: null }) !== JSON.stringify({ ...found, modifiedAt: null });
  if (!changed) return { customer: found, created: false, updated: false };
  next.modifiedAt = at;
  await customersRepository(trx).update(next);
  return { customer: next, created: false, updated: true };
}
