import type { Db } from '../database/index.js';

/**
 * What a trigger reads and writes besides its job: the orders module owns `orders`, the grant engine these columns and
 * `benefit_grants`.
 */
export function grantTriggersRepository(db: Db) {
  return {
    /** Which of these orders or subscriptions hold a grant (live, pending or revoked). */
    async holdingGrants(holderIds: readonly string[]): Promise<Set<string>> {
      if (holderIds.length === 0) return new Set();
      const rows = (await db('benefit_grants')
        .whereIn('scope_id', [...new Set(holderIds)])
        .distinct('scope_id')) as Array<{ scope_id: string }>;
      return new Set(rows.map((row) => String(row.scope_id)));
    },

    async markOrderBenefitsRevoked(orderId: string, at: Date): Promise<void> {
      await db('orders').where({ id: orderId }).whereNull('benefits_revoked_at').update({ benefits_revoked_at: at });
    },

    /**
     * Clears the "action required" error of the customer's grants of benefits of these types, and answers their
     * holders (subscription or order), so that their next sync grants them.
     */
    async releaseAwaitingAction(
      customerId: string,
      benefitTypes: readonly string[],
      at: Date,
    ): Promise<Array<{ subscriptionId: string | null; orderId: string | null }>> {
      const waiting = db('benefit_grants')
        .where({ customer_id: customerId })
        .whereNull('granted_at')
        .whereNull('revoked_at')
        .where('error', 'like', '%"type":"BenefitActionRequiredError"%')
        .whereIn(
          'benefit_id',
          db('benefits')
            .whereIn('type', [...benefitTypes])
            .select('id'),
        );
      const rows = (await waiting.clone().select('id', 'subscription_id', 'order_id')) as Array<
        Record<string, unknown>
      >;
      if (rows.length === 0) return [];
      await db('benefit_grants')
        .whereIn(
          'id',
          rows.map((row) => String(row.id)),
        )
        .update({ error: null, modified_at: at });
      return rows.map((row) => ({
        subscriptionId: (row.subscription_id as string | null) ?? null,
        orderId: (row.order_id as string | null) ?? null,
      }));
    },
  };
}
