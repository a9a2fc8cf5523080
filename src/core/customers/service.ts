import { randomUUID } from 'node:crypto';
import { resourceNotFound, validationError, type FieldIssue } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import { transaction, type Db } from '../database/index.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate, readableOrganizationIds } from '../polar-api/actor.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { customersRepository, type Customer } from './repository.js';
import { duplicateIssues, resolveTaxId, withUniqueErrors } from './rules.js';
import type { CustomerCreateInput, CustomerStateWire, CustomerUpdateInput, CustomerWire } from './schemas.js';
import {
  customerState,
  recordCustomerEvent,
  type ActiveMetersReader,
  type ActiveSubscriptionsReader,
} from './state.js';
import { customerWire } from './wire.js';

/** How a route names a customer: Polar's id, or the merchant's own external id. */
export type CustomerRef = { id: string } | { externalId: string };

const ANONYMIZED_DOMAIN = 'anonymized.invalid';

function raise(issues: FieldIssue[]): void {
  if (issues.length > 0) throw validationError(issues);
}

export function createCustomerService(deps: {
  db: Db;
  clock: Clock;
  activeSubscriptionsOf: ActiveSubscriptionsReader;
  activeMetersOf?: ActiveMetersReader;
}) {
  const { db, clock, activeSubscriptionsOf, activeMetersOf } = deps;

  /** The customer behind a reference, if the caller may see it; others' customers are a 404 like missing ones. */
  async function resolve(trx: Db, actor: MerchantActor, ref: CustomerRef, mode: 'read' | 'write'): Promise<Customer> {
    const repo = customersRepository(trx);
    const found =
      'id' in ref
        ? await repo.findById(ref.id)
        : await repo.findByExternalId(readableOrganizationIds(actor), ref.externalId);
    if (!found) throw resourceNotFound();
    authorize(actor, found.organizationId, mode);
    if (mode === 'read') return found;
    // Re-read under a row lock so two updates of one customer do not interleave on PostgreSQL.
    return (await repo.lockById(found.id)) ?? found;
  }

  return {
    resolve: (actor: MerchantActor, ref: CustomerRef) => resolve(db, actor, ref, 'read'),

    async create(actor: MerchantActor, input: CustomerCreateInput): Promise<CustomerWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      const email = input.email ? input.email.toLowerCase() : null;
      const issues: FieldIssue[] = [];
      const taxId = resolveTaxId(input.tax_id, null, input.billing_address ?? null, issues);
      return transaction(db, async (trx) => {
        raise([...(await duplicateIssues(trx, organizationId, { email, externalId: input.external_id })), ...issues]);
        const now = clock.now();
        const customer: Customer = {
          id: randomUUID(),
          organizationId,
          type: input.type,
          externalId: input.external_id ?? null,
          email,
          emailVerified: false,
          name: input.name ?? null,
          billingName: null,
          billingAddress: input.billing_address ?? null,
          taxId,
          locale: input.locale ?? null,
          metadata: input.metadata ?? {},
          createdAt: now,
          modifiedAt: null,
          deletedAt: null,
        };
        await withUniqueErrors(customer, () => customersRepository(trx).insert(customer));
        await recordCustomerEvent(trx, customer, 'created', now, activeSubscriptionsOf);
        return customerWire(customer);
      });
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[]; email?: string; query?: string },
      metadata: MetadataQuery,
    ): Promise<Page<CustomerWire>> {
      const page = await customersRepository(db).list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          email: query.email,
          query: query.query,
          metadata,
        },
        query,
      );
      return { items: page.items.map(customerWire), pagination: page.pagination };
    },

    async get(actor: MerchantActor, ref: CustomerRef): Promise<CustomerWire> {
      return customerWire(await resolve(db, actor, ref, 'read'));
    },

    async state(actor: MerchantActor, ref: CustomerRef): Promise<CustomerStateWire> {
      const customer = await resolve(db, actor, ref, 'read');
      const state = await customerState(db, customer.id, activeSubscriptionsOf, activeMetersOf);
      if (!state) throw resourceNotFound();
      return state;
    },

    /** Polar's `update`: undefined means not sent, null means cleared; `external_id` and `type` only by id. */
    async update(actor: MerchantActor, ref: CustomerRef, input: Partial<CustomerUpdateInput>): Promise<CustomerWire> {
      return transaction(db, async (trx) => {
        const current = await resolve(trx, actor, ref, 'write');
        const issues: FieldIssue[] = [];
        const next: Customer = { ...current };
        const email = input.email ? input.email.toLowerCase() : null;
        if (email && email !== current.email) {
          issues.push(...(await duplicateIssues(trx, current.organizationId, { email }, current.id)));
          next.email = email;
          next.emailVerified = false;
        }
        if (input.billing_address !== undefined) {
          if (input.billing_address === null) {
            issues.push({
              loc: ['body', 'billing_address'],
              msg: 'Customer billing address cannot be reset to null once set.',
              type: 'value_error',
              input: null,
            });
          } else next.billingAddress = input.billing_address;
        }
        if (input.external_id !== undefined && input.external_id !== current.externalId) {
          if (current.externalId !== null) {
            issues.push({
              loc: ['body', 'external_id'],
              msg: 'Customer external ID cannot be updated.',
              type: 'value_error',
              input: input.external_id ?? null,
            });
          } else {
            issues.push(
              ...(await duplicateIssues(trx, current.organizationId, { externalId: input.external_id }, current.id)),
            );
            next.externalId = input.external_id ?? null;
          }
        }
        if (input.type) {
          if (current.type === 'team' && input.type === 'individual') {
            issues.push({
              loc: ['body', 'type'],
              msg: "Customer type cannot be downgraded from 'team' to 'individual'.",
              type: 'value_error',
              input: input.type,
            });
          } else next.type = input.type;
        }
        raise(issues);
        next.taxId = resolveTaxId(input.tax_id, current.taxId, next.billingAddress, issues);
        raise(issues);
        if (input.name !== undefined) next.name = input.name;
        if (input.locale !== undefined) next.locale = input.locale;
        if (input.metadata) next.metadata = input.metadata;
        next.modifiedAt = clock.now();
        await withUniqueErrors(next, () => customersRepository(trx).update(next));
        await recordCustomerEvent(trx, next, 'updated', next.modifiedAt, activeSubscriptionsOf);
        return customerWire(next);
      });
    },

    /**
     * Soft delete: the customer disappears from the API and frees its e-mail address and external id; orders and
     * subscriptions keep pointing at the row. `anonymize` also erases personal data, keeping the external id and
     * tax id (and a business's name) as Polar does for invoices.
     */
    async delete(actor: MerchantActor, ref: CustomerRef, options: { anonymize: boolean }): Promise<void> {
      await transaction(db, async (trx) => {
        const current = await resolve(trx, actor, ref, 'write');
        const now = clock.now();
        const next: Customer = { ...current, deletedAt: now, modifiedAt: now };
        if (options.anonymize) {
          next.email = current.email ? `${randomUUID()}@${ANONYMIZED_DOMAIN}` : null;
          next.emailVerified = false;
          if (!current.taxId) next.name = null;
          next.billingName = null;
          next.billingAddress = null;
          next.metadata = { ...current.metadata, __anonymized_at: now.toISOString() };
        }
        const repo = customersRepository(trx);
        await repo.update(next);
        // A deleted customer's portal sessions end with it.
        await repo.deleteSessionsOf(current.id);
        await recordCustomerEvent(trx, next, 'deleted', now, activeSubscriptionsOf);
      });
    },
  };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
