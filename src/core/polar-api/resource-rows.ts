/** What the rows of Polar's orders, refunds and subscriptions share: how their lists narrow and how they end. */
import type { Knex } from 'knex';
import { parseJson, toDate, toDateOrNull, type Db } from '../database/index.js';
import type { Metadata } from './schemas.js';

/** Narrows a list query to each column's listed values; a column given no values narrows nothing. */
export function whereAnyOf(query: Knex.QueryBuilder, columns: Record<string, readonly string[] | undefined>): void {
  for (const [column, values] of Object.entries(columns)) if (values?.length) query.whereIn(column, values);
}

/** Narrows a list query to the customers the merchant names by external id, within the listed organizations. */
export function whereExternalCustomers(
  db: Db,
  query: Knex.QueryBuilder,
  organizationIds: readonly string[],
  externalIds: readonly string[] | undefined,
): void {
  if (!externalIds?.length) return;
  query.whereIn(
    'customer_id',
    db('customers').select('id').whereIn('organization_id', organizationIds).whereIn('external_id', externalIds),
  );
}

/** What an order, refund or subscription row ends with: the merchant's metadata and when it was made and changed. */
export interface ResourceStamps {
  metadata: Metadata;
  createdAt: Date;
  modifiedAt: Date | null;
}

export function stampsFromRow(row: Record<string, unknown>): ResourceStamps {
  return {
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}
