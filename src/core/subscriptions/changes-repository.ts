import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';

/**
 * What a plan change leaves waiting for a later bill: the pending `next_period` update (one per subscription) and
 * the proration entries an order has not carried yet.
 */

export interface PendingUpdate {
  id: string;
  subscriptionId: string;
  productId: string;
  productPriceId: string;
  appliesAt: Date;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface ProrationEntry {
  id: string;
  subscriptionId: string;
  label: string;
  /** Signed minor units: a credit is negative. */
  amount: number;
  currency: string;
  orderId: string | null;
  billedAt: Date | null;
  createdAt: Date;
}

function pendingFromRow(row: Record<string, unknown>): PendingUpdate {
  return {
    id: String(row.id),
    subscriptionId: String(row.subscription_id),
    productId: String(row.product_id),
    productPriceId: String(row.product_price_id),
    appliesAt: toDate(row.applies_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

function entryFromRow(row: Record<string, unknown>): ProrationEntry {
  return {
    id: String(row.id),
    subscriptionId: String(row.subscription_id),
    label: String(row.label),
    amount: Number(row.amount),
    currency: String(row.currency),
    orderId: row.order_id == null ? null : String(row.order_id),
    billedAt: toDateOrNull(row.billed_at),
    createdAt: toDate(row.created_at),
  };
}

export function pendingUpdatesRepository(db: Db) {
  return {
    async find(subscriptionId: string): Promise<PendingUpdate | null> {
      const row = await db('subscription_pending_updates').where({ subscription_id: subscriptionId }).first();
      return row ? pendingFromRow(row) : null;
    },
    /** The pending updates of a page of subscriptions, in one query. */
    async forSubscriptions(ids: readonly string[]): Promise<Map<string, PendingUpdate>> {
      if (ids.length === 0) return new Map();
      const rows = (await db('subscription_pending_updates').whereIn('subscription_id', [...new Set(ids)])) as Array<
        Record<string, unknown>
      >;
      return new Map(rows.map((row) => [String(row.subscription_id), pendingFromRow(row)]));
    },
    /** Sets the subscription's one pending update, replacing any earlier one. */
    async put(update: PendingUpdate): Promise<void> {
      await db('subscription_pending_updates').where({ subscription_id: update.subscriptionId }).delete();
      await db('subscription_pending_updates').insert({
        id: update.id,
        subscription_id: update.subscriptionId,
        product_id: update.productId,
        product_price_id: update.productPriceId,
        applies_at: update.appliesAt,
        created_at: update.createdAt,
        modified_at: update.modifiedAt,
      });
    },
    /** Removes the subscription's pending update; whether there was one. */
    async clear(subscriptionId: string): Promise<boolean> {
      return (await db('subscription_pending_updates').where({ subscription_id: subscriptionId }).delete()) > 0;
    },
  };
}

export function prorationEntriesRepository(db: Db) {
  return {
    async insert(entries: readonly ProrationEntry[]): Promise<void> {
      if (entries.length === 0) return;
      await db('subscription_proration_entries').insert(
        entries.map((entry) => ({
          id: entry.id,
          subscription_id: entry.subscriptionId,
          label: entry.label,
          amount: entry.amount,
          currency: entry.currency,
          order_id: entry.orderId,
          billed_at: entry.billedAt,
          created_at: entry.createdAt,
        })),
      );
    },
    /** The entries no order has carried yet, oldest first. */
    async unbilled(subscriptionId: string): Promise<ProrationEntry[]> {
      const rows = (await db('subscription_proration_entries')
        .where({ subscription_id: subscriptionId })
        .whereNull('billed_at')
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])) as Array<Record<string, unknown>>;
      return rows.map(entryFromRow);
    },
    /** Every entry of a subscription, billed or not (its history). */
    /** Of these subscriptions, those with entries not billed yet (one query for a batch of renewals). */
    async withUnbilled(subscriptionIds: readonly string[]): Promise<Set<string>> {
      if (subscriptionIds.length === 0) return new Set();
      const rows = (await db('subscription_proration_entries')
        .whereIn('subscription_id', [...new Set(subscriptionIds)])
        .whereNull('billed_at')
        .distinct('subscription_id')) as Array<{ subscription_id: string }>;
      return new Set(rows.map((row) => String(row.subscription_id)));
    },
    async all(subscriptionId: string): Promise<ProrationEntry[]> {
      const rows = (await db('subscription_proration_entries')
        .where({ subscription_id: subscriptionId })
        .orderBy('created_at', 'asc')) as Array<Record<string, unknown>>;
      return rows.map(entryFromRow);
    },
    async markBilled(ids: readonly string[], at: Date, orderId: string | null): Promise<void> {
      if (ids.length === 0) return;
      await db('subscription_proration_entries')
        .whereIn('id', [...ids])
        .update({ billed_at: at, order_id: orderId });
    },
  };
}
