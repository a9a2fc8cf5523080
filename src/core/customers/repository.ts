import type { Db, Deferred } from '../database/index.js';
import {
  dialect,
  markChanged,
  markStoredChange,
  parseJson,
  toBool,
  toDate,
  toDateOrNull,
  transaction,
  whereContains,
} from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { Metadata } from '../polar-api/schemas.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import type { Address, TaxId } from './address.js';
import type { CustomerType } from './schemas.js';

export interface Customer {
  id: string;
  organizationId: string;
  type: CustomerType;
  externalId: string | null;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  billingName: string | null;
  billingAddress: Address | null;
  taxId: TaxId | null;
  locale: string | null;
  metadata: Metadata;
  createdAt: Date;
  modifiedAt: Date | null;
  deletedAt: Date | null;
}

export interface CustomerSession {
  id: string;
  customerId: string;
  returnUrl: string | null;
  expiresAt: Date;
  createdAt: Date;
}

/** A customer from its row (also read by other domains' joins, e.g. a license key validated with its customer). */
export function customerFromRow(row: Record<string, unknown>): Customer {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    type: row.type as CustomerType,
    externalId: (row.external_id as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    emailVerified: toBool(row.email_verified),
    name: (row.name as string | null) ?? null,
    billingName: (row.billing_name as string | null) ?? null,
    billingAddress: parseJson<Address>(row.billing_address),
    taxId: parseJson<TaxId>(row.tax_id),
    locale: (row.locale as string | null) ?? null,
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

function toRow(customer: Customer): Record<string, unknown> {
  return {
    id: customer.id,
    organization_id: customer.organizationId,
    type: customer.type,
    external_id: customer.externalId,
    email: customer.email,
    email_verified: customer.emailVerified,
    name: customer.name,
    billing_name: customer.billingName,
    billing_address: customer.billingAddress ? JSON.stringify(customer.billingAddress) : null,
    tax_id: customer.taxId ? JSON.stringify(customer.taxId) : null,
    locale: customer.locale,
    metadata: JSON.stringify(customer.metadata),
    created_at: customer.createdAt,
    modified_at: customer.modifiedAt,
    deleted_at: customer.deletedAt,
  };
}

export interface CustomerFilters {
  organizationIds: string[];
  email?: string;
  query?: string;
  metadata?: MetadataQuery;
}

/**
 * A write to an organization's customers with its change marks, which the customers ingestion keeps rest on
 * (events/ingest-lookups.ts): the in-memory mark before it (SQLite), the stored one in its transaction (PostgreSQL),
 * unless `changed` says the write changed nothing (an insert that met a live customer).
 */
async function changingCustomers<T>(
  db: Db,
  organizationId: string,
  write: (on: Db) => Promise<T>,
  changed: (result: T) => boolean = () => true,
): Promise<T> {
  markChanged(db, 'customers', organizationId);
  if (dialect(db) !== 'postgres') return write(db);
  return transaction(db, async (trx) => {
    const result = await write(trx);
    if (changed(result)) await markStoredChange(trx, 'customers', organizationId);
    return result;
  });
}

/** Live customers only (soft-deleted rows are invisible everywhere but in the row itself). */
export function customersRepository(db: Db) {
  const live = () => db('customers').whereNull('deleted_at');
  return {
    async insert(customer: Customer): Promise<void> {
      await changingCustomers(db, customer.organizationId, (on) => on('customers').insert(toRow(customer)));
    },
    /**
     * Inserts unless a live customer already has the e-mail address or external id (the unique indexes decide, so
     * concurrent inserts of one address make one row). Returns whether it inserted. No error is raised on a
     * conflict, so a PostgreSQL transaction survives it without a savepoint.
     */
    async insertIfAbsent(customer: Customer): Promise<boolean> {
      const inserted = await changingCustomers(
        db,
        customer.organizationId,
        (on) => on('customers').insert(toRow(customer)).onConflict().ignore().returning('id'),
        (rows) => rows.length > 0,
      );
      return inserted.length > 0;
    },
    async findById(id: string): Promise<Customer | null> {
      const row = await live().where({ id }).first();
      return row ? customerFromRow(row) : null;
    },
    /** For update: locks the row on PostgreSQL so concurrent changes to one customer apply one after the other. */
    async lockById(id: string): Promise<Customer | null> {
      const query = live().where({ id });
      if (dialect(db) === 'postgres') query.forUpdate();
      const row = await query.first();
      return row ? customerFromRow(row) : null;
    },
    /** Deleted or not: the state sent with `customer.deleted` describes the customer as it was deleted. */
    async findAnyById(id: string): Promise<Customer | null> {
      const row = await db('customers').where({ id }).first();
      return row ? customerFromRow(row) : null;
    },
    /** Customers by id, deleted ones included, unknown ids left out: one query for a whole page of orders. */
    async findAnyByIds(ids: readonly string[]): Promise<Customer[]> {
      if (ids.length === 0) return [];
      return ((await db('customers').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(
        customerFromRow,
      );
    },
    async findByExternalId(organizationIds: string[], externalId: string): Promise<Customer | null> {
      const row = await live().whereIn('organization_id', organizationIds).where({ external_id: externalId }).first();
      return row ? customerFromRow(row) : null;
    },
    async findByEmail(organizationId: string, email: string): Promise<Customer | null> {
      const row = await live().where({ organization_id: organizationId, email: email.toLowerCase() }).first();
      return row ? customerFromRow(row) : null;
    },
    async list(filters: CustomerFilters, options: ListOptions) {
      const query = live().whereIn('organization_id', filters.organizationIds);
      if (filters.email) query.where('email', filters.email.toLowerCase());
      if (filters.query) whereContains(query, ['email', 'name'], filters.query);
      if (filters.metadata) whereMetadata(db, query, filters.metadata);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        email: 'email',
        name: 'name',
        customer_name: 'name',
      });
      return { items: page.rows.map(customerFromRow), pagination: page.pagination };
    },
    async update(customer: Customer): Promise<void> {
      const { id, ...row } = toRow(customer);
      await changingCustomers(db, customer.organizationId, (on) => on('customers').where({ id }).update(row));
    },
    async insertSession(session: CustomerSession, tokenHash: string): Promise<void> {
      await this.deferInsertSession(session, tokenHash);
    },
    /** insertSession's INSERT, not run yet (see Deferred). */
    deferInsertSession(session: CustomerSession, tokenHash: string): Deferred {
      return db('customer_sessions').insert({
        id: session.id,
        customer_id: session.customerId,
        token_hash: tokenHash,
        return_url: session.returnUrl,
        expires_at: session.expiresAt,
        created_at: session.createdAt,
      });
    },
    /** The session and its customer, unless the customer has been deleted since. */
    async findSessionByHash(tokenHash: string): Promise<{ session: CustomerSession; customer: Customer } | null> {
      const row = await db('customer_sessions').where({ token_hash: tokenHash }).first();
      if (!row) return null;
      const customer = await live().where({ id: row.customer_id }).first();
      if (!customer) return null;
      const session: CustomerSession = {
        id: String(row.id),
        customerId: String(row.customer_id),
        returnUrl: (row.return_url as string | null) ?? null,
        expiresAt: toDate(row.expires_at),
        createdAt: toDate(row.created_at),
      };
      return { session, customer: customerFromRow(customer) };
    },
    async deleteSessionsOf(customerId: string): Promise<void> {
      await db('customer_sessions').where({ customer_id: customerId }).delete();
    },
    async deleteExpiredSessions(customerId: string, before: Date): Promise<void> {
      await db('customer_sessions').where({ customer_id: customerId }).where('expires_at', '<=', before).delete();
    },
  };
}
