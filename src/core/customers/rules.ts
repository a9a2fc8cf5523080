import type { FieldIssue } from '../polar-api/errors.js';
import { validationError } from '../polar-api/errors.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation } from '../database/index.js';
import type { Address, TaxId } from './address.js';
import { validateTaxId } from './address.js';
import { customersRepository, type Customer } from './repository.js';

/** Polar's business rules on a customer's fields, shared by the merchant API, the portal and checkouts. */

export const DUPLICATE_EMAIL = 'A customer with this email address already exists.';
export const DUPLICATE_EXTERNAL_ID = 'A customer with this external ID already exists.';

/**
 * The tax id to store: the new number, or the stored one re-checked when the country changes, validated against
 * the billing address's country. Issues are reported at `loc` prefixes Polar uses (`body.tax_id`,
 * `body.billing_address`).
 */
export function resolveTaxId(
  number: string | null | undefined,
  current: TaxId | null,
  address: Address | null,
  issues: FieldIssue[],
): TaxId | null {
  const value = number ?? current?.[0] ?? null;
  if (value === null) return null;
  if (!address) {
    issues.push({ loc: ['body', 'billing_address'], msg: 'Country is required to validate tax ID.', type: 'missing' });
    return current;
  }
  const validated = validateTaxId(value, address.country);
  if (!validated)
    issues.push({ loc: ['body', 'tax_id'], msg: 'Invalid tax ID.', type: 'invalid', input: number ?? value });
  return validated;
}

/** Duplicate checks before writing; the partial unique indexes are what make them hold under concurrency. */
export async function duplicateIssues(
  db: Db,
  organizationId: string,
  candidate: { email?: string | null; externalId?: string | null },
  self?: string,
): Promise<FieldIssue[]> {
  const repo = customersRepository(db);
  const issues: FieldIssue[] = [];
  if (candidate.email) {
    const found = await repo.findByEmail(organizationId, candidate.email);
    if (found && found.id !== self)
      issues.push({ loc: ['body', 'email'], msg: DUPLICATE_EMAIL, type: 'value_error', input: candidate.email });
  }
  if (candidate.externalId) {
    const found = await repo.findByExternalId([organizationId], candidate.externalId);
    if (found && found.id !== self)
      issues.push({
        loc: ['body', 'external_id'],
        msg: DUPLICATE_EXTERNAL_ID,
        type: 'value_error',
        input: candidate.externalId,
      });
  }
  return issues;
}

/** Which unique index a failed write hit, for the 422 Polar gives when a concurrent request won the race. */
export function uniqueConflict(error: unknown): 'email' | 'external_id' | null {
  if (!isUniqueViolation(error)) return null;
  // PostgreSQL names the index; SQLite lists its columns. Knex puts the whole SQL statement (which names every
  // column) before the driver's message, so only the part after SQLite's marker is looked at.
  const e = error as { constraint?: string; message?: string };
  const text = e.constraint ?? /UNIQUE constraint failed: (.*)$/.exec(e.message ?? '')?.[1] ?? '';
  if (text.includes('external_id')) return 'external_id';
  if (text.includes('email')) return 'email';
  return null;
}

/** Runs a write and turns a lost race on a unique index into Polar's 422. */
export async function withUniqueErrors<T>(
  customer: Pick<Customer, 'email' | 'externalId'>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const conflict = uniqueConflict(error);
    if (conflict === 'email')
      throw validationError([
        { loc: ['body', 'email'], msg: DUPLICATE_EMAIL, type: 'value_error', input: customer.email },
      ]);
    if (conflict === 'external_id')
      throw validationError([
        { loc: ['body', 'external_id'], msg: DUPLICATE_EXTERNAL_ID, type: 'value_error', input: customer.externalId },
      ]);
    throw error;
  }
}
