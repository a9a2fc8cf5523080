import type { Db } from '../database/index.js';
import { parseJson, toDate, toDateOrNull, toStringOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

/** Polar's BenefitGrantError: why a grant is not granted when retrying would not help. */
export interface GrantError {
  message: string;
  type: string;
  timestamp: string;
}

export type GrantProperties = Record<string, unknown>;

export interface BenefitGrant {
  id: string;
  organizationId: string;
  customerId: string;
  benefitId: string;
  subscriptionId: string | null;
  orderId: string | null;
  grantedAt: Date | null;
  revokedAt: Date | null;
  error: GrantError | null;
  properties: GrantProperties;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface GrantFilter {
  organizationIds: string[];
  customerIds?: string[];
  benefitIds?: string[];
  benefitTypes?: string[];
  orderIds?: string[];
  subscriptionIds?: string[];
  isGranted?: boolean;
}

/** What the engine needs of a grant's holder: the order or subscription it came with. */
export interface Holder {
  kind: 'order' | 'subscription';
  id: string;
  organizationId: string;
  customerId: string;
  productId: string | null;
}

function fromRow(row: Record<string, unknown>): BenefitGrant {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    customerId: String(row.customer_id),
    benefitId: String(row.benefit_id),
    subscriptionId: toStringOrNull(row.subscription_id),
    orderId: toStringOrNull(row.order_id),
    grantedAt: toDateOrNull(row.granted_at),
    revokedAt: toDateOrNull(row.revoked_at),
    error: parseJson<GrantError>(row.error),
    properties: parseJson<GrantProperties>(row.properties) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function toRow(grant: BenefitGrant) {
  return {
    granted_at: grant.grantedAt,
    revoked_at: grant.revokedAt,
    error: grant.error ? JSON.stringify(grant.error) : null,
    properties: JSON.stringify(grant.properties),
    modified_at: grant.modifiedAt,
  };
}

export function benefitGrantsRepository(db: Db) {
  return {
    async insert(grant: BenefitGrant): Promise<void> {
      await db('benefit_grants').insert({
        id: grant.id,
        organization_id: grant.organizationId,
        customer_id: grant.customerId,
        benefit_id: grant.benefitId,
        subscription_id: grant.subscriptionId,
        order_id: grant.orderId,
        scope_id: grant.subscriptionId ?? grant.orderId,
        created_at: grant.createdAt,
        ...toRow(grant),
      });
    },

    async save(grant: BenefitGrant): Promise<void> {
      await db('benefit_grants').where({ id: grant.id }).update(toRow(grant));
    },

    async findById(id: string): Promise<BenefitGrant | null> {
      const row = await db('benefit_grants').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    /** The grants of one order or subscription. */
    async forHolder(holderId: string): Promise<BenefitGrant[]> {
      return (await db('benefit_grants').where({ scope_id: holderId }).orderBy('created_at')).map(fromRow);
    },

    async list(filter: GrantFilter, options: ListOptions) {
      const query = db('benefit_grants').whereIn('organization_id', filter.organizationIds);
      if (filter.customerIds?.length) query.whereIn('customer_id', filter.customerIds);
      if (filter.benefitIds?.length) query.whereIn('benefit_id', filter.benefitIds);
      if (filter.orderIds?.length) query.whereIn('order_id', filter.orderIds);
      if (filter.subscriptionIds?.length) query.whereIn('subscription_id', filter.subscriptionIds);
      if (filter.benefitTypes?.length)
        query.whereIn('benefit_id', db('benefits').whereIn('type', filter.benefitTypes).select('id'));
      if (filter.isGranted === true) query.whereNotNull('granted_at').whereNull('revoked_at');
      if (filter.isGranted === false)
        query.where((q) => {
          q.whereNull('granted_at').orWhereNotNull('revoked_at');
        });
      const page = await paginate<Record<string, unknown>>(query, options, { created_at: 'created_at' });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    /** A batch of a benefit's grants after `afterId`, in id order (live ones only when `grantedOnly`). */
    async batchForBenefit(
      benefitId: string,
      afterId: string | null,
      limit: number,
      grantedOnly: boolean,
    ): Promise<BenefitGrant[]> {
      const query = db('benefit_grants').where({ benefit_id: benefitId });
      if (grantedOnly) query.whereNotNull('granted_at').whereNull('revoked_at');
      if (afterId) query.where('id', '>', afterId);
      return (await query.orderBy('id').limit(limit)).map(fromRow);
    },

    /** The live benefits of a product, with their types (the products module owns `product_benefits`). */
    async productBenefits(productId: string): Promise<Array<{ id: string; type: string }>> {
      const rows = (await db('product_benefits')
        .join('benefits', 'benefits.id', 'product_benefits.benefit_id')
        .where('product_benefits.product_id', productId)
        .whereNull('benefits.deleted_at')
        .orderBy('product_benefits.order')
        .select('benefits.id', 'benefits.type')) as Array<{ id: string; type: string }>;
      return rows.map((row) => ({ id: String(row.id), type: String(row.type) }));
    },

    /** A one-time order as the engine sees it, null when unknown or when it does not entitle (yet, or any more). */
    async entitlingOrder(orderId: string): Promise<{ holder: Holder; entitled: boolean } | null> {
      const row = (await db('orders')
        .where({ id: orderId })
        .first('id', 'organization_id', 'customer_id', 'product_id', 'status', 'benefits_revoked_at')) as
        Record<string, unknown> | undefined;
      if (!row) return null;
      return {
        holder: {
          kind: 'order',
          id: String(row.id),
          organizationId: String(row.organization_id),
          customerId: String(row.customer_id),
          productId: toStringOrNull(row.product_id),
        },
        entitled: row.status !== 'pending' && row.benefits_revoked_at == null,
      };
    },

    /** A batch of a product's subscriptions (any status: the sync decides) or one-time orders, in id order. */
    async productHolderIds(
      productId: string,
      kind: 'subscription' | 'order',
      afterId: string | null,
      limit: number,
    ): Promise<string[]> {
      const query =
        kind === 'subscription'
          ? db('subscriptions').where({ product_id: productId })
          : db('orders').where({ product_id: productId }).whereNull('subscription_id');
      if (afterId) query.where('id', '>', afterId);
      const rows = (await query.orderBy('id').limit(limit).select('id')) as Array<{ id: string }>;
      return rows.map((row) => String(row.id));
    },
  };
}

export type BenefitGrantsRepository = ReturnType<typeof benefitGrantsRepository>;
