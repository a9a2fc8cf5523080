import type { Knex } from 'knex';
import type { Db } from '../database/index.js';
import { parseJson, toBool, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { isUuid } from '../discounts/repository.js';
import type { Metadata } from '../polar-api/schemas.js';
import type { RecurringInterval } from '../products/schemas.js';

export interface CheckoutLink {
  id: string;
  organizationId: string;
  clientSecret: string;
  paymentProcessor: 'stripe';
  successUrl: string | null;
  returnUrl: string | null;
  label: string | null;
  allowDiscountCodes: boolean;
  requireBillingAddress: boolean;
  discountId: string | null;
  trialInterval: RecurringInterval | null;
  trialIntervalCount: number | null;
  metadata: Metadata;
  /** In the order the merchant gave them: the checkout offers them in this order. */
  productIds: string[];
  createdAt: Date;
  modifiedAt: Date | null;
  deletedAt: Date | null;
}

export type CheckoutLinkChanges = Partial<
  Pick<
    CheckoutLink,
    | 'successUrl'
    | 'returnUrl'
    | 'label'
    | 'allowDiscountCodes'
    | 'requireBillingAddress'
    | 'discountId'
    | 'trialInterval'
    | 'trialIntervalCount'
    | 'metadata'
  >
> & { modifiedAt: Date };

function fromRow(row: Record<string, unknown>, productIds: string[]): CheckoutLink {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    clientSecret: String(row.client_secret),
    paymentProcessor: 'stripe',
    successUrl: (row.success_url as string | null) ?? null,
    returnUrl: (row.return_url as string | null) ?? null,
    label: (row.label as string | null) ?? null,
    allowDiscountCodes: toBool(row.allow_discount_codes),
    requireBillingAddress: toBool(row.require_billing_address),
    discountId: (row.discount_id as string | null) ?? null,
    trialInterval: (row.trial_interval as RecurringInterval | null) ?? null,
    trialIntervalCount:
      row.trial_interval_count === null || row.trial_interval_count === undefined
        ? null
        : Number(row.trial_interval_count),
    metadata: parseJson<Metadata>(row.metadata) ?? {},
    productIds,
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

function columns(changes: Omit<CheckoutLinkChanges, 'modifiedAt'>): Record<string, unknown> {
  const names: Record<string, string> = {
    successUrl: 'success_url',
    returnUrl: 'return_url',
    label: 'label',
    allowDiscountCodes: 'allow_discount_codes',
    requireBillingAddress: 'require_billing_address',
    discountId: 'discount_id',
    trialInterval: 'trial_interval',
    trialIntervalCount: 'trial_interval_count',
  };
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(names)) {
    const value = changes[key as keyof typeof changes];
    if (value !== undefined) row[column] = value;
  }
  if (changes.metadata !== undefined) row.metadata = JSON.stringify(changes.metadata);
  return row;
}

const SORT_COLUMNS = {
  created_at: 'created_at',
  label: 'label',
  success_url: 'success_url',
  allow_discount_codes: 'allow_discount_codes',
};

export function checkoutLinksRepository(db: Db) {
  async function hydrate(rows: Record<string, unknown>[]): Promise<CheckoutLink[]> {
    const ids = rows.map((row) => String(row.id));
    const byLink = new Map<string, string[]>(ids.map((id) => [id, []]));
    if (ids.length > 0) {
      const links = await db('checkout_link_products')
        .whereIn('checkout_link_id', ids)
        .orderBy('order', 'asc')
        .select('checkout_link_id', 'product_id');
      for (const link of links) byLink.get(String(link.checkout_link_id))?.push(String(link.product_id));
    }
    return rows.map((row) => fromRow(row, byLink.get(String(row.id)) ?? []));
  }

  const live = (query: Knex.QueryBuilder) => query.whereNull('deleted_at');

  return {
    async insert(link: CheckoutLink): Promise<void> {
      await db('checkout_links').insert({
        id: link.id,
        organization_id: link.organizationId,
        client_secret: link.clientSecret,
        payment_processor: link.paymentProcessor,
        created_at: link.createdAt,
        modified_at: link.modifiedAt,
        deleted_at: null,
        ...columns(link),
      });
      await this.setProducts(link.id, link.productIds);
    },

    async setProducts(linkId: string, productIds: string[]): Promise<void> {
      await db('checkout_link_products').where({ checkout_link_id: linkId }).delete();
      await db('checkout_link_products').insert(
        productIds.map((productId, order) => ({ checkout_link_id: linkId, product_id: productId, order })),
      );
    },

    async findById(id: string): Promise<CheckoutLink | null> {
      if (!isUuid(id)) return null;
      const row = await live(db('checkout_links').where({ id })).first();
      return row ? (await hydrate([row]))[0]! : null;
    },

    async findByClientSecret(clientSecret: string): Promise<CheckoutLink | null> {
      // Secrets are letters, digits and underscores; anything else (a NUL byte, say) matches nothing.
      if (!/^\w{1,64}$/.test(clientSecret)) return null;
      const row = await live(db('checkout_links').where({ client_secret: clientSecret })).first();
      return row ? (await hydrate([row]))[0]! : null;
    },

    async list(organizationIds: string[], filters: { productIds?: string[] }, options: ListOptions) {
      const query = live(db('checkout_links').whereIn('organization_id', organizationIds));
      if (filters.productIds && filters.productIds.length > 0) {
        query.whereIn(
          'id',
          db('checkout_link_products').whereIn('product_id', filters.productIds).select('checkout_link_id'),
        );
      }
      const page = await paginate<Record<string, unknown>>(query, options, SORT_COLUMNS);
      return { items: await hydrate(page.rows), pagination: page.pagination };
    },

    async update(id: string, changes: CheckoutLinkChanges): Promise<void> {
      await db('checkout_links')
        .where({ id })
        .update({ ...columns(changes), modified_at: changes.modifiedAt });
    },

    async softDelete(id: string, at: Date): Promise<void> {
      await db('checkout_links').where({ id }).update({ deleted_at: at, modified_at: at });
    },
  };
}
