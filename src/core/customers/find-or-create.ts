import { randomUUID } from 'node:crypto';
import type { Db } from '../kernel/db.js';
import type { Metadata } from '../merchant/schemas.js';
import type { Address, TaxId } from './address.js';
import { customersRepository, type Customer } from './repository.js';
import { uniqueConflict } from './rules.js';
import { recordCustomerEvent } from './state.js';

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
 * Events are recorded in `trx`. The insert runs in a savepoint, so when a concurrent checkout created the same
 * customer first, the caller's transaction survives and gets that customer.
 */
export async function findOrCreateCustomer(trx: Db, details: CustomerDetails, at: Date): Promise<{ customer: Customer; created: boolean; updated: boolean }> {
  const repo = customersRepository(trx);
  const email = details.email.toLowerCase();
  const find = async () =>
    (details.externalId ? await repo.findByExternalId([details.organizationId], details.externalId) : null) ?? (await repo.findByEmail(details.organizationId, email));

  const existing = await find();
  if (existing) return updateFound(trx, existing, details, at);

  const customer: Customer = {
    id: randomUUID(),
    organizationId: details.organizationId,
    type: 'individual',
    externalId: details.externalId ?? null,
    email,
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
  try {
    await trx.transaction(async (savepoint) => {
      await customersRepository(savepoint).insert(customer);
    });
  } catch (error) {
    if (!uniqueConflict(error)) throw error;
    const winner = await find();
    if (!winner) throw error;
    return updateFound(trx, winner, details, at);
  }
  await recordCustomerEvent(trx, customer, 'created', at);
  return { customer, created: true, updated: false };
}

async function updateFound(trx: Db, found: Customer, details: CustomerDetails, at: Date) {
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
  await recordCustomerEvent(trx, next, 'updated', at);
  return { customer: next, created: false, updated: true };
}
