import type { Db } from '../database/index.js';
import { dialect, toBool, toStringOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import { stampsFromRow, whereAnyOf, whereExternalCustomers, type ResourceStamps } from '../polar-api/resource-rows.js';
import type { RefundReason, RefundStatus } from './schemas.js';

export interface Refund extends ResourceStamps {
  id: string;
  organizationId: string;
  orderId: string;
  subscriptionId: string | null;
  customerId: string;
  status: RefundStatus;
  reason: RefundReason;
  amount: number;
  taxAmount: number;
  currency: string;
  comment: string | null;
  revokeBenefits: boolean;
  processorReference: string | null;
}

function fromRow(row: Record<string, unknown>): Refund {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    orderId: String(row.order_id),
    subscriptionId: toStringOrNull(row.subscription_id),
    customerId: String(row.customer_id),
    status: String(row.status) as RefundStatus,
    reason: String(row.reason) as RefundReason,
    amount: Number(row.amount),
    taxAmount: Number(row.tax_amount),
    currency: String(row.currency),
    comment: toStringOrNull(row.comment),
    revokeBenefits: toBool(row.revoke_benefits),
    processorReference: toStringOrNull(row.processor_reference),
    ...stampsFromRow(row),
  };
}

export interface RefundFilter {
  organizationIds: string[];
  ids?: string[];
  orderIds?: string[];
  subscriptionIds?: string[];
  customerIds?: string[];
  externalCustomerIds?: string[];
  succeeded?: boolean;
}

export function refundsRepository(db: Db) {
  return {
    async insert(refund: Refund): Promise<void> {
      await db('refunds').insert({
        id: refund.id,
        organization_id: refund.organizationId,
        order_id: refund.orderId,
        subscription_id: refund.subscriptionId,
        customer_id: refund.customerId,
        status: refund.status,
        reason: refund.reason,
        amount: refund.amount,
        tax_amount: refund.taxAmount,
        currency: refund.currency,
        comment: refund.comment,
        revoke_benefits: refund.revokeBenefits,
        processor_reference: refund.processorReference,
        metadata: JSON.stringify(refund.metadata),
        // The processor call starts now; the reconciler takes the refund over if it is still pending a lease later.
        in_flight_at: refund.createdAt,
        created_at: refund.createdAt,
        modified_at: refund.modifiedAt,
      });
    },
    /**
     * Claims up to `limit` refunds still `pending` since `staleBefore` or earlier (their request died between the
     * reservation and the outcome) for one reconciler, as checkoutsRepository.claimStale does for checkouts.
     */
    async claimStale(now: Date, staleBefore: Date, limit: number): Promise<Refund[]> {
      const stale = (query: ReturnType<Db>) =>
        query.where('status', 'pending').andWhere((due) => {
          due.whereNull('in_flight_at').orWhere('in_flight_at', '<=', staleBefore);
        });
      let candidates = stale(db('refunds').select('id')).orderBy('in_flight_at', 'asc').limit(limit);
      if (dialect(db) === 'postgres') candidates = candidates.forUpdate().skipLocked();
      const rows = await stale(db('refunds').whereIn('id', candidates)).update({ in_flight_at: now }).returning('*');
      return (rows as Record<string, unknown>[]).map(fromRow);
    },
    async findById(id: string): Promise<Refund | null> {
      const row = await db('refunds').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    /** Moves a pending refund to its outcome; false when it was not pending any more. */
    async settle(
      id: string,
      changes: { status: RefundStatus; processorReference: string | null; modifiedAt: Date },
    ): Promise<boolean> {
      const updated = await db('refunds').where({ id, status: 'pending' }).update({
        status: changes.status,
        processor_reference: changes.processorReference,
        modified_at: changes.modifiedAt,
      });
      return Number(updated) === 1;
    },
    /**
     * What refunds still in flight hold of an order: their amounts are reserved, so a refund racing them can
     * never take the same money twice. Read under the order's lock.
     */
    async pendingTotals(orderId: string): Promise<{ amount: number; taxAmount: number }> {
      const row = (await db('refunds')
        .where({ order_id: orderId, status: 'pending' })
        .sum({ amount: 'amount', tax: 'tax_amount' })
        .first()) as { amount: number | string | null; tax: number | string | null } | undefined;
      return { amount: Number(row?.amount ?? 0), taxAmount: Number(row?.tax ?? 0) };
    },
    async list(filter: RefundFilter, options: ListOptions) {
      const query = db('refunds').whereIn('organization_id', filter.organizationIds);
      whereAnyOf(query, {
        id: filter.ids,
        order_id: filter.orderIds,
        subscription_id: filter.subscriptionIds,
        customer_id: filter.customerIds,
      });
      whereExternalCustomers(db, query, filter.organizationIds, filter.externalCustomerIds);
      if (filter.succeeded === true) query.where('status', 'succeeded');
      if (filter.succeeded === false) query.whereNot('status', 'succeeded');
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        amount: 'amount',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
  };
}
