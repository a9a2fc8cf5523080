import { portalOAuthAccounts } from './oauth-accounts-repository.js';
import { randomUUID } from 'node:crypto';
import { fieldError, type FieldIssue, validationError } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import { HOUR } from '../kernel/clock.js';
import { sha256Hex } from '../kernel/crypto.js';
import { transaction, type Db } from '../database/index.js';
import { randomAlphanumeric } from '../kernel/ids.js';
import { iso } from '../polar-api/schemas.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, readableOrganizationIds } from '../polar-api/actor.js';
import { organizationsRepository } from '../organizations/repository.js';
import type { Address } from './address.js';
import { customersRepository, type Customer, type CustomerSession } from './repository.js';
import { resolveTaxId } from './rules.js';
import { recordCustomerEvent, type ActiveSubscriptionsReader } from './state.js';
import { customerPortalWire, customerWire } from './wire.js';

/** Till's prefix (Polar's is `polar_cst_`), so secret scanners never report a Till token to Polar. */
export const CUSTOMER_SESSION_PREFIX = 'till_cst_';
/** Polar's CUSTOMER_SESSION_TTL. */
export const CUSTOMER_SESSION_TTL_MS = HOUR;

export function looksLikeCustomerSessionToken(value: string): boolean {
  return value.startsWith(CUSTOMER_SESSION_PREFIX);
}

/** Who is calling the customer portal API: one customer, through a session a merchant created for them. */
export interface CustomerActor {
  customer: Customer;
  session: CustomerSession;
}

/**
 * The customer's default payment method, which the portal's customer shows and changes. The payment-methods domain
 * sits above customers, so context.ts injects it (payment-methods/service.ts).
 */
export interface DefaultPaymentMethods {
  idOf(db: Db, customerId: string): Promise<string | null>;
  /**
   * Makes one of the customer's methods their default inside `trx` (a 422 for any other id) and returns what to run
   * once that is committed.
   */
  set(trx: Db, customer: Customer, methodId: string, at: Date): Promise<() => Promise<void>>;
}

export function createCustomerSessionService(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  activeSubscriptionsOf: ActiveSubscriptionsReader;
  defaultPaymentMethods: DefaultPaymentMethods;
}) {
  const { db, clock, baseUrl, activeSubscriptionsOf, defaultPaymentMethods: defaults } = deps;

  return {
    /**
     * A portal session for a customer named by id or external id. The token is returned once; the portal URL
     * carries it, so a merchant can redirect the customer straight there.
     */
    async create(
      actor: MerchantActor,
      input: { customer_id?: string; external_customer_id?: string; return_url?: string | null },
    ) {
      const repo = customersRepository(db);
      const customer = input.customer_id
        ? await repo.findById(input.customer_id)
        : await repo.findByExternalId(readableOrganizationIds(actor), input.external_customer_id!);
      const loc = input.customer_id ? 'customer_id' : 'external_customer_id';
      if (!customer || !readableOrganizationIds(actor).includes(customer.organizationId)) {
        throw fieldError(['body', loc], 'Customer does not exist.');
      }
      authorize(actor, customer.organizationId, 'write');
      const organization = await organizationsRepository(db).findById(customer.organizationId);
      const now = clock.now();
      const token = `${CUSTOMER_SESSION_PREFIX}${randomAlphanumeric(43)}`;
      const session: CustomerSession = {
        id: randomUUID(),
        customerId: customer.id,
        returnUrl: input.return_url ?? null,
        expiresAt: new Date(now.getTime() + CUSTOMER_SESSION_TTL_MS),
        createdAt: now,
      };
      // Expired sessions are refused anyway; clearing this customer's old ones here keeps the table small.
      await repo.deleteExpiredSessions(customer.id, now);
      await repo.insertSession(session, sha256Hex(token));
      const portal = new URL(`/portal/${encodeURIComponent(organization?.slug ?? customer.organizationId)}`, baseUrl);
      portal.searchParams.set('customer_session_token', token);
      return {
        created_at: iso(session.createdAt),
        modified_at: null,
        id: session.id,
        token,
        expires_at: iso(session.expiresAt),
        return_url: session.returnUrl,
        customer_portal_url: portal.toString(),
        customer_id: customer.id,
        customer: customerWire(customer),
      };
    },

    /** The customer behind a portal bearer token, or null when it is unknown, expired or the customer was deleted. */
    async authenticate(token: string): Promise<CustomerActor | null> {
      if (!looksLikeCustomerSessionToken(token)) return null;
      const found = await customersRepository(db).findSessionByHash(sha256Hex(token));
      if (!found || found.session.expiresAt <= clock.now()) return null;
      return found;
    },

    /**
     * What the hosted portal needs to tell a customer why they are not let in: the actor, or whether the token is
     * one that expired (so the page can say to ask for a new link) rather than unknown.
     */
    async resolve(token: string): Promise<{ actor: CustomerActor } | { expired: true } | null> {
      if (!looksLikeCustomerSessionToken(token)) return null;
      const found = await customersRepository(db).findSessionByHash(sha256Hex(token));
      if (!found) return null;
      return found.session.expiresAt <= clock.now() ? { expired: true } : { actor: found };
    },

    async portalCustomer(actor: CustomerActor) {
      return customerPortalWire(
        actor.customer,
        await defaults.idOf(db, actor.customer.id),
        await portalOAuthAccounts(db, actor.customer.id),
      );
    },

    /**
     * What a customer may change about themselves: invoice name, billing address, tax id and which saved card is the
     * default (Polar's rules).
     */
    async updatePortalCustomer(
      actor: CustomerActor,
      input: {
        billing_name?: string | null;
        billing_address?: Address | null;
        tax_id?: string | null;
        default_payment_method_id?: string | null;
      },
    ) {
      if (input.default_payment_method_id === null)
        throw fieldError(
          ['body', 'default_payment_method_id'],
          'Default payment method cannot be reset to null.',
          'missing',
        );
      let afterCommit: (() => Promise<void>) | null = null;
      const updated = await transaction(db, async (trx) => {
        const repo = customersRepository(trx);
        const current = (await repo.lockById(actor.customer.id)) ?? actor.customer;
        const issues: FieldIssue[] = [];
        const next: Customer = { ...current };
        if (input.billing_name !== undefined) next.billingName = input.billing_name;
        // As in Polar, a null address leaves the stored one in place rather than erasing it.
        if (input.billing_address) next.billingAddress = input.billing_address;
        next.taxId = resolveTaxId(input.tax_id, current.taxId, next.billingAddress, issues);
        if (issues.length > 0) throw validationError(issues);
        next.modifiedAt = clock.now();
        if (input.default_payment_method_id)
          afterCommit = await defaults.set(trx, current, input.default_payment_method_id, next.modifiedAt);
        await repo.update(next);
        await recordCustomerEvent(trx, next, 'updated', next.modifiedAt, activeSubscriptionsOf);
        return customerPortalWire(next, await defaults.idOf(trx, next.id), await portalOAuthAccounts(trx, next.id));
      });
      if (afterCommit) await (afterCommit as () => Promise<void>)();
      return updated;
    },
  };
}

export type CustomerSessionService = ReturnType<typeof createCustomerSessionService>;
