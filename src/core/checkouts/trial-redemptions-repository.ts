import { randomUUID } from 'node:crypto';
import type { Db, Deferred } from '../database/index.js';

/** Trials taken, one row per person (normalized e-mail), organization and product: what trial abuse is checked against. */
export function trialRedemptionsRepository(db: Db) {
  return {
    async exists(organizationId: string, productId: string, normalizedEmail: string): Promise<boolean> {
      const row = await db('trial_redemptions')
        .where({ organization_id: organizationId, product_id: productId, normalized_email: normalizedEmail })
        .first('id');
      return !!row;
    },
    /** The INSERT, not run yet; a second trial of the same person (taken anyway, the check being off) is ignored. */
    deferInsert(input: {
      organizationId: string;
      productId: string;
      normalizedEmail: string;
      subscriptionId: string;
      at: Date;
    }): Deferred {
      return db('trial_redemptions')
        .insert({
          id: randomUUID(),
          organization_id: input.organizationId,
          product_id: input.productId,
          normalized_email: input.normalizedEmail,
          subscription_id: input.subscriptionId,
          created_at: input.at,
        })
        .onConflict(['organization_id', 'product_id', 'normalized_email'])
        .ignore();
    },
  };
}
