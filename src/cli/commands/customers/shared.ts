import { UsageError } from '../../errors.js';

/** The /v1 path of one customer: by id (the argument) or by the merchant's external id. */
export function customerPath(id: unknown, externalId: string | undefined, suffix = ''): string {
  if (typeof id === 'string' && id) return `/v1/customers/${encodeURIComponent(id)}${suffix}`;
  if (externalId) return `/v1/customers/external/${encodeURIComponent(externalId)}${suffix}`;
  throw new UsageError('name the customer: an id, or --external-id <id>');
}

/** `--metadata key=value` entries as an object; values stay strings, as typed. */
export function parseMetadata(entries: string[] | undefined): Record<string, string> | undefined {
  if (!entries) return undefined;
  const metadata: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 1) throw new UsageError(`--metadata takes key=value (got "${entry}")`);
    metadata[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return metadata;
}

export interface CustomerRow {
  id: string;
  email: string | null;
  name: string | null;
  external_id?: string | null;
  created_at: string;
}

export function customerCells(customer: CustomerRow): string[] {
  return [customer.id, customer.email ?? '', customer.name ?? '', customer.external_id ?? '', customer.created_at];
}

export const CUSTOMER_HEADERS = ['ID', 'EMAIL', 'NAME', 'EXTERNAL ID', 'CREATED'];
