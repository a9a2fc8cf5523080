import { benefitsRepository } from '../benefits/repository.js';
import type { BenefitWire } from '../benefits/schemas.js';
import type { ReadCache } from '../cache/read-cache.js';
import { customersRepository } from '../customers/repository.js';
import type { CustomerActor, DefaultPaymentMethods } from '../customers/sessions.js';
import { customerPortalWire, customerWire } from '../customers/wire.js';
import type { Db } from '../database/index.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter } from '../polar-api/actor.js';
import { resourceNotFound } from '../polar-api/errors.js';
import { isUuid } from '../polar-api/schemas.js';
import { organizationsRepository } from '../organizations/repository.js';
import { organizationWire } from '../organizations/merchant-service.js';
import type { BenefitGrant, GrantFilter } from './repository.js';
import { benefitGrantsRepository } from './repository.js';
import type {
  BenefitGrantListQuery,
  BenefitGrantsOfBenefitQuery,
  CustomerBenefitGrantListQuery,
  CustomerBenefitGrantWire,
} from './schemas.js';
import { benefitGrantWire, grantFields, type BenefitGrantWire } from './wire.js';

const EMPTY = { items: [], pagination: { total_count: 0, max_page: 0 } };

/** Reading grants: the merchant's lists and the customer's own grants in the portal. */
export function createBenefitGrantService(deps: {
  db: Db;
  readCache: ReadCache;
  defaultPaymentMethods: Pick<DefaultPaymentMethods, 'idOf'>;
}) {
  const { db } = deps;

  async function benefitsOf(organizationId: string, grants: readonly BenefitGrant[]) {
    const wires = await benefitsRepository(db).findByIds(
      organizationId,
      grants.map((grant) => grant.benefitId),
      { includeDeleted: true },
    );
    return new Map(wires.map((wire) => [wire.id, wire]));
  }

  async function merchantWires(grants: readonly BenefitGrant[]): Promise<BenefitGrantWire[]> {
    if (grants.length === 0) return [];
    const customers = new Map(
      (await customersRepository(db).findAnyByIds([...new Set(grants.map((g) => g.customerId))])).map((c) => [c.id, c]),
    );
    const benefits = new Map<string, BenefitWire>();
    for (const organizationId of new Set(grants.map((grant) => grant.organizationId)))
      for (const [id, wire] of await benefitsOf(
        organizationId,
        grants.filter((grant) => grant.organizationId === organizationId),
      ))
        benefits.set(id, wire);
    return grants.map((grant) =>
      benefitGrantWire(grant, customerWire(customers.get(grant.customerId)!), benefits.get(grant.benefitId)!),
    );
  }

  async function merchantPage(filter: GrantFilter, query: { page: number; limit: number }) {
    const page = await benefitGrantsRepository(db).list(filter, { ...query, sorting: ['-created_at'] });
    return { items: await merchantWires(page.items), pagination: page.pagination };
  }

  async function customerWires(actor: CustomerActor, grants: BenefitGrant[]): Promise<CustomerBenefitGrantWire[]> {
    if (grants.length === 0) return [];
    const organizationId = actor.customer.organizationId;
    const [benefits, organization, defaultMethod] = await Promise.all([
      benefitsOf(organizationId, grants),
      organizationsRepository(db, deps.readCache).findMerchantView(organizationId),
      deps.defaultPaymentMethods.idOf(db, actor.customer.id),
    ]);
    const org = organizationWire(organization!);
    const subscriberOrganization = {
      created_at: org.created_at,
      modified_at: org.modified_at,
      id: org.id,
      name: org.name,
      slug: org.slug,
      avatar_url: org.avatar_url,
      proration_behavior: org.proration_behavior,
      allow_customer_updates: org.allow_customer_updates,
    };
    const customer = customerPortalWire(actor.customer, defaultMethod);
    return grants.map((grant) => {
      const benefit = benefits.get(grant.benefitId)!;
      const { visibility: _visibility, visibility_configurable: _configurable, ...shown } = benefit;
      return {
        ...grantFields(grant),
        customer,
        // The custom benefit's note reaches its holder here, in the benefit's properties (as in Polar).
        benefit: { ...shown, organization: subscriberOrganization },
      };
    });
  }

  return {
    async list(actor: MerchantActor, query: BenefitGrantListQuery): Promise<Page<BenefitGrantWire>> {
      const organizationIds = organizationFilter(actor, query.organization_id);
      if (query.member_id?.length) return EMPTY;
      return merchantPage(
        {
          organizationIds,
          customerIds: query.customer_id,
          benefitIds: query.benefit_id,
          isGranted: query.is_granted,
        },
        query,
      );
    },

    async listOfBenefit(
      actor: MerchantActor,
      benefitId: string,
      query: BenefitGrantsOfBenefitQuery,
    ): Promise<Page<BenefitGrantWire>> {
      const benefit = isUuid(benefitId) ? await benefitsRepository(db).findById(benefitId) : null;
      if (!benefit) throw resourceNotFound();
      authorize(actor, benefit.organizationId, 'read');
      // Members do not exist in Till: a member filter matches no grant.
      if (query.member_id?.length) return EMPTY;
      return merchantPage(
        {
          organizationIds: [benefit.organizationId],
          benefitIds: [benefit.id],
          customerIds: query.customer_id,
          isGranted: query.is_granted,
        },
        query,
      );
    },

    async listForCustomer(
      actor: CustomerActor,
      query: CustomerBenefitGrantListQuery,
    ): Promise<Page<CustomerBenefitGrantWire>> {
      const page = await benefitGrantsRepository(db).list(
        {
          organizationIds: [actor.customer.organizationId],
          customerIds: [actor.customer.id],
          benefitIds: query.benefit_id,
          benefitTypes: query.type ? [query.type] : undefined,
          orderIds: query.order_id,
          subscriptionIds: query.subscription_id,
        },
        { ...query, sorting: ['-created_at'] },
      );
      return { items: await customerWires(actor, page.items), pagination: page.pagination };
    },

    async getForCustomer(actor: CustomerActor, id: string): Promise<CustomerBenefitGrantWire> {
      const grant = isUuid(id) ? await benefitGrantsRepository(db).findById(id) : null;
      if (!grant || grant.customerId !== actor.customer.id) throw resourceNotFound();
      return (await customerWires(actor, [grant]))[0]!;
    },
  };
}

export type BenefitGrantService = ReturnType<typeof createBenefitGrantService>;
