/**
 * Polar's token scopes (its `Scope` enum as of the 2026-04 API and SDK 0.47). Organization access tokens carry a
 * subset; a route passes if the token holds any one of the scopes the route names, as in Polar.
 */
export const SCOPES = [
  'openid',
  'profile',
  'email',
  'user:read',
  'user:write',
  'web:read',
  'web:write',
  'organizations:read',
  'organizations:write',
  'custom_fields:read',
  'custom_fields:write',
  'discounts:read',
  'discounts:write',
  'checkout_links:read',
  'checkout_links:write',
  'checkouts:read',
  'checkouts:write',
  'transactions:read',
  'transactions:write',
  'payouts:read',
  'payouts:write',
  'products:read',
  'products:write',
  'benefits:read',
  'benefits:write',
  'events:read',
  'events:write',
  'meters:read',
  'meters:write',
  'files:read',
  'files:write',
  'subscriptions:read',
  'subscriptions:write',
  'customers:read',
  'customers:write',
  'members:read',
  'members:write',
  'wallets:read',
  'wallets:write',
  'disputes:read',
  'disputes:write',
  'customer_meters:read',
  'customer_sessions:write',
  'member_sessions:write',
  'customer_seats:read',
  'customer_seats:write',
  'orders:read',
  'orders:write',
  'refunds:read',
  'refunds:write',
  'payments:read',
  'metrics:read',
  'metrics:write',
  'webhooks:read',
  'webhooks:write',
  'license_keys:read',
  'license_keys:write',
  'customer_portal:read',
  'customer_portal:write',
  'notifications:read',
  'notifications:write',
  'notification_recipients:read',
  'notification_recipients:write',
  'organization_access_tokens:read',
  'organization_access_tokens:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** `products` → `['products:read', 'products:write']`: what a read route accepts (write implies read, as in Polar). */
export function readScopes(resource: string): Scope[] {
  return [`${resource}:read`, `${resource}:write`] as Scope[];
}

export function writeScopes(resource: string): Scope[] {
  return [`${resource}:write`] as Scope[];
}
