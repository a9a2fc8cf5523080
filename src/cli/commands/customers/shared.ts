import type { CustomerWire } from '../../../core/customers/schemas.js';
import { UsageError } from '../../errors.js';

/** The /v1 path of one customer: by id (the argument) or by the merchant's external id. */
export function customerPath(id: unknown, externalId: string | undefined, suffix = ''): string {
  if (typeof id === 'string' && id) return `/v1/customers/${encodeURIComponent(id)}${suffix}`;
  if (externalId) return `/v1/customers/external/${encodeURIComponent(externalId)}${suffix}`;
  throw new UsageError('name the customer: an id, or --external-id <id>');
}

export function customerCells(customer: CustomerWire): string[] {
  return [customer.id, customer.email ?? '', customer.name ?? '', customer.external_id ?? '', customer.created_at];
}

export const CUSTOMER_HEADERS = ['ID', 'EMAIL', 'NAME', 'EXTERNAL ID', 'CREATED'];
