import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull } from '../database/index.js';
import { iso, isoOrNull, type Metadata } from '../polar-api/schemas.js';
import type { CustomerStateWire } from './schemas.js';

/**
 * A customer's live grants as CustomerState lists them. The grant engine (benefit-grants) owns `benefit_grants` and
 * sits above customers; the state only reads it, joined with the benefits' type and metadata.
 */
export async function grantedBenefitsOf(db: Db, customerId: string): Promise<CustomerStateWire['granted_benefits']> {
  return (await grantedBenefitsOfMany(db, [customerId])).get(customerId) ?? [];
}

/** grantedBenefitsOf for many customers in one query (a batch of renewals' `customer.state_changed`). */
export async function grantedBenefitsOfMany(
  db: Db,
  customerIds: readonly string[],
): Promise<Map<string, CustomerStateWire['granted_benefits']>> {
  const byCustomer = new Map<string, CustomerStateWire['granted_benefits']>();
  if (customerIds.length === 0) return byCustomer;
  const rows = (await db('benefit_grants')
    .join('benefits', 'benefits.id', 'benefit_grants.benefit_id')
    .whereIn('benefit_grants.customer_id', [...new Set(customerIds)])
    .whereNotNull('benefit_grants.granted_at')
    .whereNull('benefit_grants.revoked_at')
    .orderBy('benefit_grants.granted_at')
    .select(
      'benefit_grants.id',
      'benefit_grants.customer_id',
      'benefit_grants.created_at',
      'benefit_grants.modified_at',
      'benefit_grants.granted_at',
      'benefit_grants.benefit_id',
      'benefit_grants.properties',
      'benefits.type',
      'benefits.metadata',
    )) as Array<Record<string, unknown>>;
  for (const row of rows) {
    const customerId = String(row.customer_id);
    const list = byCustomer.get(customerId) ?? [];
    list.push({
      id: String(row.id),
      created_at: iso(toDate(row.created_at)),
      modified_at: isoOrNull(toDateOrNull(row.modified_at)),
      granted_at: iso(toDate(row.granted_at)),
      benefit_id: String(row.benefit_id),
      benefit_type: String(row.type),
      benefit_metadata: parseJson<Metadata>(row.metadata) ?? {},
      properties: parseJson<Record<string, unknown>>(row.properties) ?? {},
    } as CustomerStateWire['granted_benefits'][number]);
    byCustomer.set(customerId, list);
  }
  return byCustomer;
}
