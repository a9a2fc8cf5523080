import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { Metadata } from '../polar-api/schemas.js';
import type { DiscountDuration, DiscountType } from './schemas.js';

export interface Discount {
  id: string;
  organizationId: string;
  name: string;
  type: DiscountType;
  /** Fixed discounts: the amount in `currency`, and every currency's amount in `amounts`. */
  amount: number | null;
  currency: string | null;
  amounts: Record<string, number> | null;
  basisPoints: number | null;
  duration: DiscountDuration;
  durationInMonths: number | null;
  code: string | null;
  startsAt: Date | null;
  endsAt: Date | null;
  maxRedemptions: number | null;
  redemptionsCount: number;
  metadata: Metadata;
  /** Products the discount is restricted to, in the order given; empty means every product. */
  productIds: string[];
  createdAt: Date;
  modifiedAt: Date | null;
  deletedAt: Date | null;
}

export type DiscountChanges = Partial<
  Pick<
    Discount,
    | 'name'
    | 'amount'
    | 'currency'
    | 'amounts'
    | 'basisPoints'
    | 'durationInMonths'
    | 'code'
    | 'startsAt'
    | 'endsAt'
    | 'maxRedemptions'
    | 'metadata'
  >
> & { modifiedAt: Date };

/** Ids that are not UUIDs name no row; PostgreSQL would refuse them as uuid input rather than find nothing. */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

export function normalizeCode(code: string): string {
  return code.toLowerCase();
}

function fromRow(row: Record<string, unknown>, productIds: string[]): Discount {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    name: String(row.name),
    type: row.type as DiscountType,
    amount: row.amount === null ? null : Number(row.amount),
    currency: (row.currency as string | null) ?? null,
    amounts: parseJson<Record<string, number>>(row.amounts),
    basisPoints: row.basis_points === null ? null : Number(row.basis_points),
    duration: row.duration as DiscountDuration,
    durationInMonths: row.duration_in_months === null ? null : Number(row.duration_in_months),
    code: (row.code as string | null) ?? null,
    startsAt: toDateOrNull(row.starts_at),
    endsAt: toDateOrNull(row.ends_at),
    maxRedemptions: row.max_redemptions === null ? null : Number(row.max_redemptions),
    redemptionsCount: Number(row.redemptions_count),
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    productIds,
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

function columns(changes: Omit<DiscountChanges, 'modifiedAt'>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (changes.name !== undefined) row.name = changes.name;
  if (changes.amount !== undefined) row.amount = changes.amount;
  if (changes.currency !== undefined) row.currency = changes.currency;
  if (changes.amounts !== undefined) row.amounts = changes.amounts === null ? null : JSON.stringify(changes.amounts);
  if (changes.basisPoints !== undefined) row.basis_points = changes.basisPoints;
  if (changes.durationInMonths !== undefined) row.duration_in_months = changes.durationInMonths;
  if (changes.code !== undefined) {
    row.code = changes.code;
    row.code_normalized = changes.code === null ? null : normalizeCode(changes.code);
  }
  if (changes.startsAt !== undefined) row.starts_at = changes.startsAt;
  if (changes.endsAt !== undefined) row.ends_at = changes.endsAt;
  if (changes.maxRedemptions !== undefined) row.max_redemptions = changes.maxRedemptions;
  if (changes.metadata !== undefined) row.metadata = JSON.stringify(changes.metadata);
  return row;
}

const SORT_COLUMNS = {
  created_at: 'created_at',
  name: 'name',
  code: 'code_normalized',
  redemptions_count: 'redemptions_count',
  ends_at: 'ends_at',
};

export function discountsRepository(db: Db) {
  async function productIdsOf(ids: string[]): Promise<Map<string, string[]>> {
    const byDiscount = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byDiscount;
    const rows = await db('discount_products')
      .whereIn('discount_id', ids)
      .orderBy('position', 'asc')
      .select('discount_id', 'product_id');
    for (const row of rows) byDiscount.get(String(row.discount_id))?.push(String(row.product_id));
    return byDiscount;
  }

  async function hydrate(rows: Record<string, unknown>[]): Promise<Discount[]> {
    const products = await productIdsOf(rows.map((row) => String(row.id)));
    return rows.map((row) => fromRow(row, products.get(String(row.id)) ?? []));
  }

  const live = (query: Knex.QueryBuilder) => query.whereNull('deleted_at');

  return {
    async insert(discount: Discount): Promise<void> {
      await db('discounts').insert({
        id: discount.id,
        organization_id: discount.organizationId,
        type: discount.type,
        duration: discount.duration,
        redemptions_count: discount.redemptionsCount,
        created_at: discount.createdAt,
        modified_at: discount.modifiedAt,
        deleted_at: null,
        ...columns(discount),
      });
      await this.setProducts(discount.id, discount.productIds);
    },

    async setProducts(discountId: string, productIds: string[]): Promise<void> {
      await db('discount_products').where({ discount_id: discountId }).delete();
      if (productIds.length > 0) {
        await db('discount_products').insert(
          productIds.map((productId, position) => ({ discount_id: discountId, product_id: productId, position })),
        );
      }
    },

    /** A discount that is not deleted. */
    async findById(id: string): Promise<Discount | null> {
      if (!isUuid(id)) return null;
      const row = await live(db('discounts').where({ id })).first();
      return row ? (await hydrate([row]))[0]! : null;
    },

    async findByIds(ids: string[]): Promise<Discount[]> {
      const valid = ids.filter(isUuid);
      if (valid.length === 0) return [];
      return hydrate(await live(db('discounts').whereIn('id', valid)));
    },

    /** The organization's live discount with this code, in any letter case. */
    async findByCode(organizationId: string, code: string): Promise<Discount | null> {
      const row = await live(
        db('discounts').where({ organization_id: organizationId, code_normalized: normalizeCode(code) }),
      ).first();
      return row ? (await hydrate([row]))[0]! : null;
    },

    async list(organizationIds: string[], filters: { query?: string }, options: ListOptions) {
      const query = live(db('discounts').whereIn('organization_id', organizationIds));
      if (filters.query) whereContains(query, ['name', 'code_normalized'], filters.query);
      const page = await paginate<Record<string, unknown>>(query, options, SORT_COLUMNS);
      return { items: await hydrate(page.rows), pagination: page.pagination };
    },

    async update(id: string, changes: DiscountChanges): Promise<void> {
      await db('discounts')
        .where({ id })
        .update({ ...columns(changes), modified_at: changes.modifiedAt });
    },

    /**
     * Soft deletion: the row stays for the orders that used it. Its code is freed for a new discount, and checkout
     * links stop offering it, as ON DELETE SET NULL would for a hard delete.
     */
    async softDelete(id: string, at: Date): Promise<void> {
      await db('discounts').where({ id }).update({ deleted_at: at, modified_at: at, code_normalized: null });
      await db('checkout_links').where({ discount_id: id }).update({ discount_id: null, modified_at: at });
    },
  };
}

export type DiscountsRepository = ReturnType<typeof discountsRepository>;
