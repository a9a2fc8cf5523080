/**
 * The scheduled job kinds of the grant engine (src/core/benefit-grants registers their handlers). They live apart
 * from the engine so the domains whose changes cause grants (checkouts, subscriptions, refunds, products, benefits)
 * can schedule them without importing the engine, which itself reads those domains.
 */
export const GRANT_JOBS = {
  /** Subject: a subscription. Grants its product's benefits while it is active or trialing, revokes once it ended. */
  syncSubscription: 'benefit_grant.sync_subscription',
  /** Subject: a one-time order. Grants its product's benefits unless a refund revoked them. */
  syncOrder: 'benefit_grant.sync_order',
  /** Subject: a subscription. Revokes its grants at the due time unless it is active or trialing again by then. */
  revokeSubscription: 'benefit_grant.revoke_subscription',
  /** Subject: `<subscription>.<order>` (compact ids). A renewal paid: `benefit_grant.cycled` for each grant. */
  cycle: 'benefit_grant.cycle',
  /** Subject: `<product>` then `<product>:<s|o>:<cursor>`. Syncs every holder of a product, a batch at a time. */
  productHolders: 'benefit_grant.product_holders',
  /** Subject: `<benefit>` then `<benefit>:<cursor>`. Updates every live grant of a benefit, a batch at a time. */
  benefitUpdated: 'benefit_grant.benefit_updated',
  /** Subject: `<benefit>` then `<benefit>:<cursor>`. Resyncs the holders of a deleted benefit's grants. */
  benefitDeleted: 'benefit_grant.benefit_deleted',
  /** Subject: a grant. The strategy's update after its benefit's properties changed (`benefit_grant.updated`). */
  update: 'benefit_grant.update',
} as const;

/** A UUID in 22 characters (base64url of its 16 bytes), so two fit in a job's 64-character subject. */
export function compactId(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}

export function expandId(compact: string): string {
  const hex = Buffer.from(compact, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
