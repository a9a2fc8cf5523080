import type { ReadCache } from '../cache/read-cache.js';
import type { CustomerActor } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import { organizationsRepository } from '../organizations/repository.js';
import { organizationWire } from '../organizations/merchant-service.js';
import { productsRepository } from '../products/repository.js';
import { productWires } from '../products/loaders.js';
import type { ProductWire } from '../products/schemas.js';

/** How many plans the hosted portal offers to move to; an organization with more lists the first ones by name. */
const PLAN_CHOICES_LIMIT = 50;

/**
 * What the hosted portal page (`/portal/:slug`) needs beyond the customer portal API: the organization its URL
 * names, and what that organization lets a customer do with a subscription. The actions themselves go through the
 * same services as `/v1/customer-portal`.
 */
export function createHostedPortalService(deps: { db: Db; readCache: ReadCache; baseUrl: string }) {
  const { db, readCache } = deps;
  return {
    async organizationBySlug(slug: string): Promise<{ id: string; name: string; slug: string } | null> {
      const organization = await organizationsRepository(db, readCache).findBySlug(slug);
      return organization ? { id: organization.id, name: organization.name, slug: organization.slug } : null;
    },

    /** The plans the customer may switch to, empty when the organization does not let customers change plans. */
    async planChoices(actor: CustomerActor): Promise<ProductWire[]> {
      const view = await organizationsRepository(db, readCache).findMerchantView(actor.customer.organizationId);
      if (!view) return [];
      const settings = organizationWire(view);
      if (!settings.customer_portal_settings.subscription.update_plan) return [];
      if (!settings.subscription_settings.allow_customer_updates) return [];
      const page = await productsRepository(db, readCache).list(
        {
          organizationIds: [actor.customer.organizationId],
          isArchived: false,
          isRecurring: true,
          visibility: ['public'],
        },
        { page: 1, limit: PLAN_CHOICES_LIMIT, sorting: ['name'] },
      );
      return productWires(db, page.items, { baseUrl: deps.baseUrl, readCache });
    },
  };
}

export type HostedPortalService = ReturnType<typeof createHostedPortalService>;
