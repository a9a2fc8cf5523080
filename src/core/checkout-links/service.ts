import { randomUUID } from 'node:crypto';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import type { ReadCache } from '../cache/read-cache.js';
import { transaction } from '../database/index.js';
import { randomAlphanumeric } from '../kernel/ids.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, readableOrganizationIds } from '../polar-api/actor.js';
import { discountsRepository } from '../discounts/repository.js';
import type { ProductLookup } from '../discounts/loaders.js';
import { findPrice } from '../products/read.js';
import type { ProductWire } from '../products/schemas.js';
import type { CheckoutLink, CheckoutLinkChanges } from './repository.js';
import { checkoutLinksRepository } from './repository.js';
import type { CheckoutLinkCreateInput, CheckoutLinkUpdateInput, CheckoutLinkWire } from './schemas.js';
import { loadCheckoutLinkWires } from './loaders.js';

/** Till's own prefix (Polar's is `polar_cl_`), so nobody mistakes one for the other. */
export const CHECKOUT_LINK_SECRET_PREFIX = 'till_cl_';

export interface CheckoutLinkDeps {
  db: Db;
  clock: Clock;
  /** The daemon's public URL: a link's `url` is built on it. */
  baseUrl: string;
  products: ProductLookup;
  /** The daemon's read cache, for the catalog (cache/read-cache.ts). */
  readCache: ReadCache;
}

export function createCheckoutLinkService(deps: CheckoutLinkDeps) {
  const { db, clock, products } = deps;

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<CheckoutLink> {
    const link = await checkoutLinksRepository(db).findById(id);
    if (!link) throw resourceNotFound();
    authorize(actor, link.organizationId, mode);
    return link;
  }

  /**
   * Products a link may sell: live (not archived) products of one organization. `loc` points at the field the ids
   * came from, so a wrong id is reported where it was written.
   */
  async function checkProducts(
    trx: Db,
    organizationIds: string[],
    ids: string[],
    loc: Array<string | number>,
  ): Promise<ProductWire[]> {
    const found = new Map((await products.byIds(trx, [...new Set(ids)])).map((product) => [product.id, product]));
    const organizationId = found.get(ids[0]!)?.organization_id;
    return [...new Set(ids)].map((id) => {
      const product = found.get(id);
      const at = loc.at(-1) === 'products' ? [...loc, ids.indexOf(id)] : loc;
      if (
        !product ||
        !organizationIds.includes(product.organization_id) ||
        product.organization_id !== organizationId
      ) {
        throw fieldError(at, 'Product does not exist.');
      }
      if (product.is_archived) throw fieldError(at, 'Product is archived.');
      return product;
    });
  }

  async function checkDiscount(trx: Db, organizationId: string, discountId: string): Promise<void> {
    const discount = await discountsRepository(trx).findById(discountId);
    if (!discount || discount.organizationId !== organizationId)
      throw fieldError(['body', 'discount_id'], 'Discount does not exist.');
  }

  async function wire(trx: Db, link: CheckoutLink): Promise<CheckoutLinkWire> {
    return (await loadCheckoutLinkWires(trx, deps, [link]))[0]!;
  }

  return {
    async create(actor: MerchantActor, input: CheckoutLinkCreateInput): Promise<CheckoutLinkWire> {
      return transaction(db, async (trx) => {
        let ids: string[];
        let loc: Array<string | number>;
        if (input.products) [ids, loc] = [input.products, ['body', 'products']];
        else if (input.product_id) [ids, loc] = [[input.product_id], ['body', 'product_id']];
        else {
          // Polar's deprecated single-price shape: the link sells the price's product.
          const found = await findPrice(trx, input.product_price_id!, deps.readCache);
          if (!found || found.price.isArchived) throw fieldError(['body', 'product_price_id'], 'Price does not exist.');
          [ids, loc] = [[found.product.id], ['body', 'product_price_id']];
        }
        // The link belongs to its products' organization, which the caller must be allowed to manage.
        const selected = await checkProducts(trx, readableOrganizationIds(actor), ids, loc);
        const organizationId = selected[0]!.organization_id;
        authorize(actor, organizationId, 'write');
        if (input.discount_id) await checkDiscount(trx, organizationId, input.discount_id);
        const link: CheckoutLink = {
          id: randomUUID(),
          organizationId,
          clientSecret: `${CHECKOUT_LINK_SECRET_PREFIX}${randomAlphanumeric(43)}`,
          paymentProcessor: input.payment_processor,
          successUrl: input.success_url ?? null,
          returnUrl: input.return_url ?? null,
          label: input.label ?? null,
          allowDiscountCodes: input.allow_discount_codes,
          requireBillingAddress: input.require_billing_address,
          discountId: input.discount_id ?? null,
          trialInterval: input.trial_interval ?? null,
          trialIntervalCount: input.trial_interval_count ?? null,
          metadata: input.metadata ?? {},
          productIds: selected.map((product) => product.id),
          createdAt: clock.now(),
          modifiedAt: null,
          deletedAt: null,
        };
        await checkoutLinksRepository(trx).insert(link);
        return wire(trx, link);
      });
    },

    async get(actor: MerchantActor, id: string): Promise<CheckoutLinkWire> {
      return wire(db, await owned(actor, id, 'read'));
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[]; product_id?: string[] },
    ): Promise<Page<CheckoutLinkWire>> {
      const page = await checkoutLinksRepository(db).list(
        organizationFilter(actor, query.organization_id),
        { productIds: query.product_id },
        query,
      );
      return { items: await loadCheckoutLinkWires(db, deps, page.items), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: CheckoutLinkUpdateInput): Promise<CheckoutLinkWire> {
      const current = await owned(actor, id, 'write');
      return transaction(db, async (trx) => {
        const repo = checkoutLinksRepository(trx);
        const changes: CheckoutLinkChanges = { modifiedAt: clock.now() };
        // Nullable fields are cleared by null; the two flags keep their value when sent null.
        for (const [field, key] of [
          ['success_url', 'successUrl'],
          ['return_url', 'returnUrl'],
          ['label', 'label'],
          ['discount_id', 'discountId'],
          ['trial_interval', 'trialInterval'],
          ['trial_interval_count', 'trialIntervalCount'],
        ] as const) {
          if (input[field] !== undefined) (changes as Record<string, unknown>)[key] = input[field];
        }
        if (input.allow_discount_codes != null) changes.allowDiscountCodes = input.allow_discount_codes;
        if (input.require_billing_address != null) changes.requireBillingAddress = input.require_billing_address;
        if (input.metadata !== undefined) changes.metadata = input.metadata;
        if (changes.discountId) await checkDiscount(trx, current.organizationId, changes.discountId);
        let productIds = current.productIds;
        if (input.products != null) {
          productIds = (await checkProducts(trx, [current.organizationId], input.products, ['body', 'products'])).map(
            (product) => product.id,
          );
          await repo.setProducts(current.id, productIds);
        }
        await repo.update(current.id, changes);
        return wire(trx, { ...current, ...changes, productIds });
      });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      const link = await owned(actor, id, 'write');
      await checkoutLinksRepository(db).softDelete(link.id, clock.now());
    },
  };
}

export type CheckoutLinkService = ReturnType<typeof createCheckoutLinkService>;
