import type { PortalOAuthAccounts } from './oauth-accounts-repository.js';
import { createHash } from 'node:crypto';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { Customer } from './repository.js';
import type { CustomerStateWire, CustomerWire } from './schemas.js';

/**
 * Polar's avatar: Gravatar by the SHA-256 of the address, `d=404` so a client falls back to initials. SDK 0.47
 * requires a string even for a team without an address, so that one hashes the empty string.
 */
export function avatarUrl(email: string | null): string {
  const hash = createHash('sha256')
    .update((email ?? '').toLowerCase())
    .digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?d=404`;
}

export function customerWire(customer: Customer): CustomerWire {
  return {
    id: customer.id,
    created_at: iso(customer.createdAt),
    modified_at: isoOrNull(customer.modifiedAt),
    metadata: customer.metadata,
    external_id: customer.externalId,
    // Team customers may have no address; SDK 0.47's CustomerIndividual needs a string, which individuals always have.
    email: customer.email,
    email_verified: customer.emailVerified,
    type: customer.type,
    name: customer.name,
    // Polar: the invoice name falls back to the customer's name.
    billing_name: customer.billingName ?? customer.name,
    billing_address: customer.billingAddress,
    tax_id: customer.taxId,
    locale: customer.locale,
    organization_id: customer.organizationId,
    default_payment_method_id: null,
    deleted_at: isoOrNull(customer.deletedAt),
    first_user_event_at: null,
    avatar_url: avatarUrl(customer.email),
  };
}

export interface CustomerStateParts {
  activeSubscriptions: CustomerStateWire['active_subscriptions'];
  grantedBenefits: CustomerStateWire['granted_benefits'];
  activeMeters: CustomerStateWire['active_meters'];
}

export function customerStateWire(customer: Customer, parts: CustomerStateParts): CustomerStateWire {
  return {
    ...customerWire(customer),
    active_subscriptions: parts.activeSubscriptions,
    granted_benefits: parts.grantedBenefits,
    active_meters: parts.activeMeters,
  };
}

/** The customer as the portal shows it to themselves (Polar's CustomerPortalCustomer), with their default card. */
export function customerPortalWire(
  customer: Customer,
  defaultPaymentMethodId: string | null,
  oauthAccounts: PortalOAuthAccounts = {},
) {
  return {
    created_at: iso(customer.createdAt),
    modified_at: isoOrNull(customer.modifiedAt),
    id: customer.id,
    email: customer.email,
    email_verified: customer.emailVerified,
    name: customer.name,
    billing_name: customer.billingName ?? customer.name,
    billing_address: customer.billingAddress,
    tax_id: customer.taxId,
    oauth_accounts: oauthAccounts,
    default_payment_method_id: defaultPaymentMethodId,
    type: customer.type,
    locale: customer.locale,
  };
}
