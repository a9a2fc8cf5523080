import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { Refund } from './repository.js';
import type { RefundWire } from './schemas.js';

export function refundWire(refund: Refund): RefundWire {
  return {
    created_at: iso(refund.createdAt),
    modified_at: isoOrNull(refund.modifiedAt),
    id: refund.id,
    metadata: refund.metadata,
    status: refund.status,
    reason: refund.reason,
    amount: refund.amount,
    tax_amount: refund.taxAmount,
    currency: refund.currency,
    organization_id: refund.organizationId,
    order_id: refund.orderId,
    subscription_id: refund.subscriptionId,
    customer_id: refund.customerId,
    revoke_benefits: refund.revokeBenefits,
    // Disputes do not exist in Till (no card network stands behind the sandbox processor).
    dispute: null,
  };
}
