import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { dialect, parseJson, toBool, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { whereMetadata } from '../polar-api/metadata-filter.js';
import type { MetadataQuery } from '../polar-api/metadata-query.js';
import type { Metadata } from '../polar-api/schemas.js';
import type { ReadCache } from '../cache/read-cache.js';
import { cachedLivePrices, cachedPrice, cachedPrices, cachedProducts } from './catalog-cache.js';
import type { PricedMeter } from './price-schemas.js';
import type { ProductPrice } from './prices.js';
import { priceFromRow, priceToRow } from './prices.js';
import type { RecurringInterval, VISIBILITIES } from './schemas.js';

export interface Product {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  visibility: (typeof VISIBILITIES)[number];
  recurringInterval: RecurringInterval | null;
  recurringIntervalCount: number | null;
  trialInterval: RecurringInterval | null;
  trialIntervalCount: number | null;
  isArchived: boolean;
  metadata: Metadata;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface ProductFilter {
  organizationIds: string[];
  ids?: string[];
  query?: string;
  isArchived?: boolean;
  isRecurring?: boolean;
  benefitIds?: string[];
  visibility?: string[];
  metadata?: MetadataQuery;
}

function fromRow(row: Record<string, unknown>): Product {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    name: String(row.name),
    description: row.description === null || row.description === undefined ? null : String(row.description),
    visibility: String(row.visibility) as Product['visibility'],
    recurringInterval: (row.recurring_interval ?? null) as RecurringInterval | null,
    recurringIntervalCount:
      row.recurring_interval_count === null || row.recurring_interval_count === undefined
        ? null
        : Number(row.recurring_interval_count),
    trialInterval: (row.trial_interval ?? null) as RecurringInterval | null,
    trialIntervalCount:
      row.trial_interval_count === null || row.trial_interval_count === undefined
        ? null
        : Number(row.trial_interval_count),
    isArchived: toBool(row.is_archived),
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function toRow(product: Product): Record<string, unknown> {
  return {
    id: product.id,
    organization_id: product.organizationId,
    name: product.name,
    description: product.description,
    visibility: product.visibility,
    recurring_interval: product.recurringInterval,
    recurring_interval_count: product.recurringIntervalCount,
    trial_interval: product.trialInterval,
    trial_interval_count: product.trialIntervalCount,
    is_archived: product.isArchived,
    metadata: JSON.stringify(product.metadata),
    created_at: product.createdAt,
    modified_at: product.modifiedAt,
  };
}

/**
 * Products and their prices. Given the daemon's `readCache`, findById (not for update), findByIds, findPrice and
 * livePrices may be answered from it (catalog-cache.ts).
 */
export function productsRepository(db: Db, readCache?: ReadCache | null) {
  // Sorting by price looks at the live prices: a fixed price's amount, a custom price's minimum, 0 when free.
  const priceSort = (expression: string, alias: string) =>
    db.raw(
      `(select min(${expression}) from product_prices pp where pp.product_id = products.id and pp.is_archived = ?) as ${alias}`,
      [false],
    );

  async function readProducts(ids: readonly string[]): Promise<Product[]> {
    return ((await db('products').whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>).map(fromRow);
  }

  async function readPrices(
    productIds: readonly string[],
    includeArchived: boolean,
  ): Promise<Map<string, ProductPrice[]>> {
    const byProduct = new Map<string, ProductPrice[]>();
    const query = db('product_prices').whereIn('product_id', [...new Set(productIds)]);
    if (!includeArchived) query.where({ is_archived: false });
    const rows = (await query.orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }])) as Array<
      Record<string, unknown>
    >;
    for (const price of rows.map(priceFromRow))
      byProduct.set(price.productId, [...(byProduct.get(price.productId) ?? []), price]);
    return byProduct;
  }

  return {
    async insert(product: Product): Promise<void> {
      await db('products').insert(toRow(product));
    },

    async update(product: Product): Promise<void> {
      const { id: _id, organization_id: _org, created_at: _created, ...changes } = toRow(product);
      await db('products').where({ id: product.id }).update(changes);
    },

    /**
     * `forUpdate` locks the row on PostgreSQL until the transaction ends, so two concurrent price changes cannot
     * both archive the same prices and leave two sets live; SQLite already runs one writer at a time. A locking
     * read is for a change, so it reads the row itself; other reads may be answered by the catalog cache (frozen).
     */
    async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<Product | null> {
      if (!options.forUpdate) return (await cachedProducts(readCache, db, [id], (ids) => readProducts(ids)))[0] ?? null;
      const query = db('products').where({ id });
      if (dialect(db) === 'postgres') query.forUpdate();
      const row = await query.first();
      return row ? fromRow(row) : null;
    },

    /** Products by id (unknown ones left out), possibly from the catalog cache (frozen). */
    async findByIds(ids: readonly string[]): Promise<Product[]> {
      if (ids.length === 0) return [];
      return cachedProducts(readCache, db, ids, (missing) => readProducts(missing));
    },

    async list(filter: ProductFilter, options: ListOptions) {
      const query = db('products').whereIn('products.organization_id', filter.organizationIds);
      if (filter.ids?.length) query.whereIn('products.id', filter.ids);
      if (filter.query) whereContains(query, ['products.name'], filter.query);
      if (filter.isArchived !== undefined) query.where('products.is_archived', filter.isArchived);
      if (filter.isRecurring !== undefined) {
        if (filter.isRecurring) query.whereNotNull('products.recurring_interval');
        else query.whereNull('products.recurring_interval');
      }
      if (filter.visibility?.length) query.whereIn('products.visibility', filter.visibility);
      if (filter.benefitIds?.length) {
        const benefitIds = filter.benefitIds;
        query.whereExists(function (this: Knex.QueryBuilder) {
          this.select(db.raw('1'))
            .from('product_benefits')
            .whereRaw('product_benefits.product_id = products.id')
            .whereIn('product_benefits.benefit_id', benefitIds);
        });
      }
      if (filter.metadata) whereMetadata(db, query, filter.metadata, 'products.metadata');
      query.select(
        'products.*',
        priceSort(
          "case when pp.amount_type = 'fixed' then pp.price_amount when pp.amount_type = 'custom' then pp.minimum_amount else 0 end",
          'price_sort',
        ),
        priceSort('pp.amount_type', 'price_type_sort'),
      );
      const page = await paginate<Record<string, unknown>>(
        query,
        options,
        {
          created_at: 'products.created_at',
          name: 'products.name',
          price_amount: 'price_sort',
          price_amount_type: 'price_type_sort',
        },
        'products.id',
      );
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    async insertPrices(prices: readonly ProductPrice[]): Promise<void> {
      if (prices.length > 0) await db('product_prices').insert(prices.map(priceToRow));
    },

    /** A price, archived or not, possibly from the catalog cache (frozen). */
    async findPrice(id: string): Promise<ProductPrice | null> {
      return cachedPrice(readCache, db, id, async () => {
        const row = await db('product_prices').where({ id }).first();
        return row ? priceFromRow(row) : null;
      });
    },

    /** Prices by id, archived or not, unknown ids left out, possibly from the catalog cache (frozen); one query for the rest. */
    async findPrices(ids: readonly string[]): Promise<ProductPrice[]> {
      if (ids.length === 0) return [];
      return cachedPrices(readCache, db, ids, async (missing) =>
        ((await db('product_prices').whereIn('id', missing)) as Array<Record<string, unknown>>).map(priceFromRow),
      );
    },

    /**
     * The meters that metered prices count, as prices describe them, with their organization; read from the meters
     * table here because the meters module itself builds on the catalog.
     */
    async pricedMeters(ids: readonly string[]): Promise<Array<PricedMeter & { organizationId: string }>> {
      if (ids.length === 0) return [];
      const rows = (await db('meters')
        .whereIn('id', [...new Set(ids)])
        .select('id', 'organization_id', 'name', 'unit', 'custom_label', 'custom_multiplier')) as Array<
        Record<string, unknown>
      >;
      return rows.map((row) => ({
        id: String(row.id),
        organizationId: String(row.organization_id),
        name: String(row.name),
        unit: row.unit as PricedMeter['unit'],
        custom_label: (row.custom_label as string | null) ?? null,
        custom_multiplier: row.custom_multiplier === null ? null : Number(row.custom_multiplier),
      }));
    },

    /**
     * Prices of many products at once, in each product's order; archived ones only when asked. Live prices may come
     * from the catalog cache (frozen lists).
     */
    async pricesOf(
      productIds: readonly string[],
      options: { includeArchived?: boolean } = {},
    ): Promise<Map<string, ProductPrice[]>> {
      if (productIds.length === 0) return new Map();
      if (options.includeArchived) return readPrices(productIds, true);
      return cachedLivePrices(readCache, db, productIds, (missing) => readPrices(missing, false));
    },

    async archivePrices(ids: readonly string[], at: Date): Promise<void> {
      if (ids.length > 0) await db('product_prices').whereIn('id', ids).update({ is_archived: true, modified_at: at });
    },

    async setPricePosition(id: string, position: number): Promise<void> {
      await db('product_prices').where({ id }).update({ position });
    },

    /** The ordered ids in a join table for many products: benefits, medias, or custom fields (with `required`). */
    async links(table: 'product_benefits' | 'product_medias' | 'product_custom_fields', productIds: readonly string[]) {
      const column = LINK_COLUMN[table];
      const byProduct = new Map<string, Array<{ id: string; order: number; required: boolean }>>();
      if (productIds.length === 0) return byProduct;
      const rows = (await db(table)
        .whereIn('product_id', [...new Set(productIds)])
        .orderBy([{ column: 'product_id' }, { column: 'order' }])) as Array<Record<string, unknown>>;
      for (const row of rows) {
        const productId = String(row.product_id);
        byProduct.set(productId, [
          ...(byProduct.get(productId) ?? []),
          { id: String(row[column]), order: Number(row.order), required: toBool(row.required) },
        ]);
      }
      return byProduct;
    },

    /** Replaces a product's links with `items`, keeping their order. */
    async replaceLinks(
      table: 'product_benefits' | 'product_medias' | 'product_custom_fields',
      productId: string,
      items: ReadonlyArray<{ id: string; required?: boolean }>,
    ): Promise<void> {
      const column = LINK_COLUMN[table];
      await db(table).where({ product_id: productId }).delete();
      if (items.length === 0) return;
      await db(table).insert(
        items.map((item, order) => ({
          product_id: productId,
          [column]: item.id,
          order,
          ...(table === 'product_custom_fields' ? { required: item.required ?? false } : {}),
        })),
      );
    },
  };
}

const LINK_COLUMN = {
  product_benefits: 'benefit_id',
  product_medias: 'file_id',
  product_custom_fields: 'custom_field_id',
} as const;

export type ProductsRepository = ReturnType<typeof productsRepository>;
