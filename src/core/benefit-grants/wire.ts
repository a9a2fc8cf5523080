import type { BenefitWire } from '../benefits/schemas.js';
import type { CustomerWire } from '../customers/schemas.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { BenefitGrant, GrantProperties } from './repository.js';

/** In force: granted and not revoked since. */
export function isGranted(grant: BenefitGrant): boolean {
  return grant.grantedAt !== null && grant.revokedAt === null;
}

/** The grant's own fields, as every Polar grant shape (merchant, webhook, portal) starts. */
export function grantFields(grant: BenefitGrant) {
  const granted = isGranted(grant);
  return {
    created_at: iso(grant.createdAt),
    modified_at: isoOrNull(grant.modifiedAt),
    id: grant.id,
    granted_at: granted ? iso(grant.grantedAt!) : null,
    is_granted: granted,
    revoked_at: isoOrNull(grant.revokedAt),
    is_revoked: grant.revokedAt !== null,
    subscription_id: grant.subscriptionId,
    order_id: grant.orderId,
    customer_id: grant.customerId,
    member_id: null,
    benefit_id: grant.benefitId,
    error: grant.error,
    properties: grant.properties,
  };
}

/** Polar's BenefitGrant (the merchant's lists). */
export function benefitGrantWire(grant: BenefitGrant, customer: CustomerWire, benefit: BenefitWire) {
  return { ...grantFields(grant), customer, member: null, benefit };
}

/** Polar's BenefitGrantWebhook: the grant, plus the properties it had before an update. */
export function benefitGrantWebhookWire(
  grant: BenefitGrant,
  customer: CustomerWire,
  benefit: BenefitWire,
  previousProperties: GrantProperties | null = null,
) {
  return { ...benefitGrantWire(grant, customer, benefit), previous_properties: previousProperties };
}

export type BenefitGrantWire = ReturnType<typeof benefitGrantWire>;
