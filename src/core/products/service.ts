import { productBenefitsChanged } from '../grant-triggers/triggers.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import type { FieldIssue } from '../polar-api/errors.js';
import { resourceNotFound, validationError } from '../polar-api/errors.js';
import { together, type Db } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation } from '../cache/read-cache.js';
import { recordEvent } from '../kernel/outbox.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import { checkReferences, type EmbedOptions } from './embedded.js';
import type { ProductPrice } from './prices.js';
import { priceMeterIssues } from './price-meters.js';
import { newPrice, priceAmountIssues, priceSetIssues } from './prices.js';
import type { Product } from './repository.js';
import { productsRepository } from './repository.js';
import type { ProductCreateInput, ProductUpdateInput, ProductWire } from './schemas.js';
import { productWires } from './loaders.js';

export interface ProductListQuery extends ListOptions {
  organization_id?: string[];
  id?: string[];
  query?: string;
  is_archived?: boolean;
  is_recurring?: boolean;
  benefit_id?: string[];
  visibility?: string[];
  metadata?: MetadataQuery;
}

function unique<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && (seen.add(key(item)), true));
}

export function createProductService(deps: { db: Db; clock: Clock; changing: Changing } & EmbedOptions) {
  const { db, clock } = deps;

  async function owned(trx: Db, actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Product> {
    const product = await productsRepository(trx, deps.readCache).findById(id, { forUpdate: mode === 'write' });
    if (!product) throw resourceNotFound();
    authorize(actor, product.organizationId, mode);
    return product;
  }

  async function wireOf(trx: Db, product: Product): Promise<ProductWire> {
    return (await productWires(trx, [product], deps))[0]!;
  }

  /**
   * Writes the change's event with the product as it now is, in the change's transaction. `write`, the change's
   * last write, may still be on its way if the wire reads nothing it changes.
   */
  async function changed(
    trx: Db,
    product: Product,
    type: 'product.created' | 'product.updated',
    at: Date,
    write?: PromiseLike<unknown>,
  ): Promise<ProductWire> {
    const [, wire] = await together(write, wireOf(trx, product));
    await recordEvent(trx, { organizationId: product.organizationId, type, data: wire, at });
    return wire;
  }

  function throwIf(issues: FieldIssue[]): void {
    if (issues.length > 0) throw validationError(issues);
  }

  return {
    async create(actor: MerchantActor, input: ProductCreateInput): Promise<ProductWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      const recurring = Boolean(input.recurring_interval);
      const issues = input.prices.flatMap((price, index) => priceAmountIssues(price, ['body', 'prices', index]));
      issues.push(
        ...priceSetIssues(
          input.prices.map((price, index) => ({
            amountType: price.amount_type,
            priceCurrency: price.price_currency,
            loc: ['body', 'prices', index],
          })),
          recurring,
          ['body', 'prices'],
        ),
      );
      throwIf(issues);
      const medias = unique(input.medias ?? [], (id) => id);
      const customFields = unique(input.attached_custom_fields ?? [], (field) => field.custom_field_id);
      return deps.changing(async (trx, announce) => {
        announce([merchantInvalidation(organizationId)]);
        throwIf([
          ...(await priceMeterIssues(trx, organizationId, input.prices)),
          ...(await checkReferences(trx, organizationId, {
            medias: input.medias ?? [],
            customFields: (input.attached_custom_fields ?? []).map((field) => field.custom_field_id),
          })),
        ]);
        const now = clock.now();
        const product: Product = {
          id: randomUUID(),
          organizationId,
          name: input.name,
          description: input.description ?? null,
          visibility: input.visibility,
          recurringInterval: input.recurring_interval ?? null,
          recurringIntervalCount: recurring ? (input.recurring_interval_count ?? 1) : null,
          trialInterval: recurring ? (input.trial_interval ?? null) : null,
          trialIntervalCount: recurring && input.trial_interval ? (input.trial_interval_count ?? 1) : null,
          isArchived: false,
          metadata: input.metadata ?? {},
          createdAt: now,
          modifiedAt: null,
        };
        const repo = productsRepository(trx, deps.readCache);
        await repo.insert(product);
        await repo.insertPrices(input.prices.map((price, position) => newPrice(product.id, price, position, now)));
        await repo.replaceLinks(
          'product_medias',
          product.id,
          medias.map((id) => ({ id })),
        );
        await repo.replaceLinks(
          'product_custom_fields',
          product.id,
          customFields.map((field) => ({ id: field.custom_field_id, required: field.required })),
        );
        return changed(trx, product, 'product.created', now);
      });
    },

    async list(actor: MerchantActor, query: ProductListQuery): Promise<Page<ProductWire>> {
      const page = await productsRepository(db, deps.readCache).list(
        {
          organizationIds: organizationFilter(actor, query.organization_id),
          ids: query.id,
          query: query.query,
          isArchived: query.is_archived,
          isRecurring: query.is_recurring,
          benefitIds: query.benefit_id,
          visibility: query.visibility,
          metadata: query.metadata,
        },
        query,
      );
      return { items: await productWires(db, page.items, deps), pagination: page.pagination };
    },

    async get(actor: MerchantActor, id: string): Promise<ProductWire> {
      return wireOf(db, await owned(db, actor, id, 'read'));
    },

    async update(actor: MerchantActor, id: string, input: ProductUpdateInput): Promise<ProductWire> {
      return deps.changing(async (trx, announce) => {
        const current = await owned(trx, actor, id, 'write');
        // Every cached product wire of the organization goes: it may embed this product's prices or links.
        announce([merchantInvalidation(current.organizationId)]);
        const repo = productsRepository(trx, deps.readCache);
        const now = clock.now();
        const recurring = current.recurringInterval !== null;
        const issues: FieldIssue[] = [];
        // Subscriptions were sold on these terms: Polar lets them be set once, never changed.
        if (input.recurring_interval && input.recurring_interval !== current.recurringInterval) {
          issues.push({
            loc: ['body', 'recurring_interval'],
            msg: recurring
              ? "The recurring interval of a product can't be changed; create a new product instead"
              : "A one-time product can't become recurring; create a new product instead",
            type: 'value_error',
          });
        }
        if (input.recurring_interval_count && input.recurring_interval_count !== current.recurringIntervalCount) {
          issues.push({
            loc: ['body', 'recurring_interval_count'],
            msg: "The recurring interval count of a product can't be changed",
            type: 'value_error',
          });
        }
        if (!recurring && (input.trial_interval || input.trial_interval_count)) {
          issues.push({
            loc: ['body', input.trial_interval ? 'trial_interval' : 'trial_interval_count'],
            msg: 'Trials are only for recurring products',
            type: 'value_error',
          });
        }

        const livePrices = input.prices ? ((await repo.pricesOf([current.id])).get(current.id) ?? []) : [];
        let pricePlan: { keep: ProductPrice[]; create: ReturnType<typeof newPrice>[]; order: string[] } | null = null;
        if (input.prices) {
          const byId = new Map(livePrices.map((price) => [price.id, price]));
          const keep: ProductPrice[] = [];
          const create: ProductPrice[] = [];
          const order: string[] = [];
          const set: Parameters<typeof priceSetIssues>[0] = [];
          input.prices.forEach((item, index) => {
            const loc = ['body', 'prices', index];
            if ('id' in item) {
              const existing = byId.get(item.id);
              if (!existing)
                issues.push({
                  loc: [...loc, 'id'],
                  msg: 'Price does not exist on this product (archived prices cannot be brought back)',
                  type: 'value_error',
                });
              else if (!order.includes(existing.id)) {
                keep.push(existing);
                order.push(existing.id);
                set.push({ amountType: existing.amountType, priceCurrency: existing.priceCurrency, loc });
              }
              return;
            }
            issues.push(...priceAmountIssues(item, loc));
            const price = newPrice(current.id, item, index, now);
            create.push(price);
            order.push(price.id);
            set.push({ amountType: item.amount_type, priceCurrency: item.price_currency, loc });
          });
          // A list whose every item was refused is already explained; "needs a price" would only add noise.
          if (set.length > 0 || input.prices.length === 0)
            issues.push(...priceSetIssues(set, recurring, ['body', 'prices']));
          pricePlan = { keep, create, order };
        }
        const medias = input.medias ? unique(input.medias, (value) => value) : null;
        const customFields = input.attached_custom_fields
          ? unique(input.attached_custom_fields, (field) => field.custom_field_id)
          : null;
        issues.push(...(await priceMeterIssues(trx, current.organizationId, input.prices ?? [])));
        issues.push(
          ...(await checkReferences(trx, current.organizationId, {
            medias: input.medias ?? [],
            customFields: (input.attached_custom_fields ?? []).map((field) => field.custom_field_id),
          })),
        );
        throwIf(issues);

        const product: Product = {
          ...current,
          name: input.name ?? current.name,
          description: input.description !== undefined ? input.description : current.description,
          visibility: input.visibility ?? current.visibility,
          isArchived: input.is_archived ?? current.isArchived,
          metadata: input.metadata ?? current.metadata,
          trialInterval: input.trial_interval !== undefined ? input.trial_interval : current.trialInterval,
          trialIntervalCount:
            input.trial_interval_count !== undefined ? input.trial_interval_count : current.trialIntervalCount,
          modifiedAt: now,
        };
        if (product.trialInterval && !product.trialIntervalCount) product.trialIntervalCount = 1;
        if (!product.trialInterval) product.trialIntervalCount = null;
        // Only the product's own row changes (a rename, say): what its wire embeds is read in the same trip.
        if (!pricePlan && !medias && !customFields)
          return changed(trx, product, 'product.updated', now, repo.update(product));
        await repo.update(product);
        if (pricePlan) {
          const kept = new Set(pricePlan.keep.map((price) => price.id));
          // Archived, never deleted: subscriptions and orders on a removed price keep pointing at it.
          await repo.archivePrices(
            livePrices.filter((price) => !kept.has(price.id)).map((price) => price.id),
            now,
          );
          await repo.insertPrices(
            pricePlan.create.map((price) => ({ ...price, position: pricePlan.order.indexOf(price.id) })),
          );
          for (const price of pricePlan.keep) {
            const position = pricePlan.order.indexOf(price.id);
            if (price.position !== position) await repo.setPricePosition(price.id, position);
          }
        }
        if (medias)
          await repo.replaceLinks(
            'product_medias',
            product.id,
            medias.map((value) => ({ id: value })),
          );
        if (customFields)
          await repo.replaceLinks(
            'product_custom_fields',
            product.id,
            customFields.map((field) => ({ id: field.custom_field_id, required: field.required })),
          );
        return changed(trx, product, 'product.updated', now);
      });
    },

    /** Replaces the product's benefits with `benefitIds`, in that order. */
    async updateBenefits(actor: MerchantActor, id: string, benefitIds: string[]): Promise<ProductWire> {
      return deps.changing(async (trx, announce) => {
        const current = await owned(trx, actor, id, 'write');
        announce([merchantInvalidation(current.organizationId)]);
        throwIf(await checkReferences(trx, current.organizationId, { benefits: benefitIds }));
        const benefits = unique(benefitIds, (value) => value);
        const now = clock.now();
        const product = { ...current, modifiedAt: now };
        const repo = productsRepository(trx, deps.readCache);
        await repo.update(product);
        await repo.replaceLinks(
          'product_benefits',
          product.id,
          benefits.map((value) => ({ id: value })),
        );
        // Every current holder gains or loses the benefits that changed, in the background.
        await productBenefitsChanged(trx, product.id, now);
        return changed(trx, product, 'product.updated', now);
      });
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
