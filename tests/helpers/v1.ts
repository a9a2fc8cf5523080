import { Polar } from '@polar-sh/sdk';
import type { TestDaemon } from './daemon.js';
import { TestClient, uniqueEmail } from './http.js';
import { createOrganization, signedInUser } from './organizations.js';

/** Every scope an organization access token can hold: tests grant all unless they test scopes. */
export const ALL_SCOPES = [
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
  'products:read',
  'products:write',
  'benefits:read',
  'benefits:write',
  'files:read',
  'files:write',
  'organization_access_tokens:read',
  'organization_access_tokens:write',
  'subscriptions:read',
  'subscriptions:write',
  'customers:read',
  'customers:write',
  'orders:read',
  'orders:write',
  'refunds:read',
  'refunds:write',
  'webhooks:read',
  'webhooks:write',
  'license_keys:read',
  'license_keys:write',
  'meters:read',
  'meters:write',
  'events:read',
  'events:write',
  'payments:read',
  'customer_sessions:write',
  'customer_meters:read',
];

/** An HTTP client that sends a bearer token, as /v1 callers do (no cookies). */
export function bearerClient(daemon: TestDaemon, token: string): TestClient {
  return new TestClient(daemon.url, { headers: { authorization: `Bearer ${token}` } });
}

/** Polar's own SDK pointed at the daemon. */
export function polarSdk(daemon: TestDaemon, token: string): Polar {
  return new Polar({ accessToken: token, serverURL: daemon.url });
}

/**
 * A merchant: a signed-up owner, their organization, and an organization access token with the given scopes.
 * `session` is the owner's session token, which /v1 accepts as a bearer too.
 */
export async function createMerchant(daemon: TestDaemon, options: { scopes?: string[]; name?: string } = {}) {
  const owner = await signedInUser(daemon, options.name ?? 'Merchant Owner');
  const organization = await createOrganization(owner.client, { name: options.name ?? 'Merchant' });
  const session = bearerClient(daemon, owner.token);
  const created = await session.post('/v1/organization-access-tokens/', {
    organization_id: organization.id,
    comment: 'test token',
    scopes: options.scopes ?? ALL_SCOPES,
  });
  if (created.status !== 201) throw new Error(`token create failed: ${created.status} ${created.text}`);
  const token = created.json.token as string;
  return { owner, organization, token, api: bearerClient(daemon, token), session, sdk: polarSdk(daemon, token) };
}

export type Merchant = Awaited<ReturnType<typeof createMerchant>>;

/** A customer of the merchant's organization, with an external id when given. */
export async function createCustomer(merchant: Merchant, externalId?: string): Promise<{ id: string }> {
  const response = await merchant.api.post('/v1/customers/', {
    email: uniqueEmail('buyer'),
    ...(externalId ? { external_id: externalId } : {}),
  });
  if (response.status !== 201) throw new Error(`customer create failed: ${response.status} ${response.text}`);
  return response.json as { id: string };
}
