import type { AuthActor } from '../auth/sessions.js';
import { fieldError, notPermitted, resourceNotFound } from './errors.js';
import { hasRole } from '../kernel/roles.js';
import type { Scope } from './scopes.js';

/**
 * Who is calling the /v1 API. An organization access token acts for its one organization within its scopes; a
 * member (session token or API key) acts for the organizations they belong to, within their role: owners and
 * admins manage billing, members read.
 */
export type MerchantActor =
  | { kind: 'organization'; tokenId: string; organizationId: string; scopes: ReadonlySet<string> }
  | {
      kind: 'user';
      userId: string;
      activeOrganizationId: string | null;
      roles: ReadonlyMap<string, string>;
      /** The session or API key behind the member, for the few operations that reuse Better Auth's services. */
      auth?: AuthActor;
    };

export type AccessMode = 'read' | 'write';

/** Stable identity of the caller, e.g. for idempotency keys (one caller's key never replays another's answer). */
export function principalOf(actor: MerchantActor): string {
  return actor.kind === 'organization' ? `oat:${actor.tokenId}` : `user:${actor.userId}`;
}

export function billingRoleAllows(role: string, mode: AccessMode): boolean {
  return mode === 'read' || hasRole(role, 'owner') || hasRole(role, 'admin');
}

/** Route-level check for tokens; members' sessions carry every scope and are limited by role instead. */
export function hasAnyScope(actor: MerchantActor, scopes: readonly Scope[]): boolean {
  if (actor.kind === 'user') return true;
  return scopes.some((scope) => actor.scopes.has(scope));
}

/** Organizations whose resources the caller may read. */
export function readableOrganizationIds(actor: MerchantActor): string[] {
  return actor.kind === 'organization' ? [actor.organizationId] : [...actor.roles.keys()];
}

/**
 * Checks the caller may act on a resource of `organizationId`. Another organization's resource is a 404, the same
 * answer as a missing one, so ids never reveal what exists; a member without a billing role gets 403.
 */
export function authorize(actor: MerchantActor, organizationId: string, mode: AccessMode): void {
  if (actor.kind === 'organization') {
    if (actor.organizationId !== organizationId) throw resourceNotFound();
    return;
  }
  const role = actor.roles.get(organizationId);
  if (role === undefined) throw resourceNotFound();
  if (!billingRoleAllows(role, mode)) throw notPermitted();
}

/**
 * The organization a new resource belongs to. Tokens use their own; a member names one with `organization_id`, or
 * gets their session's active organization, or their only one.
 */
export function organizationForCreate(
  actor: MerchantActor,
  requested: string | null | undefined,
  mode: AccessMode = 'write',
): string {
  if (actor.kind === 'organization') {
    if (requested && requested !== actor.organizationId) {
      throw fieldError(
        ['body', 'organization_id'],
        'Setting organization_id is disallowed when using an organization token.',
      );
    }
    return actor.organizationId;
  }
  let organizationId = requested ?? null;
  if (organizationId && !actor.roles.has(organizationId))
    throw fieldError(['body', 'organization_id'], 'Organization not found.');
  if (!organizationId && actor.activeOrganizationId && actor.roles.has(actor.activeOrganizationId))
    organizationId = actor.activeOrganizationId;
  if (!organizationId && actor.roles.size === 1) organizationId = [...actor.roles.keys()][0]!;
  if (!organizationId)
    throw fieldError(
      ['body', 'organization_id'],
      'organization_id is required: you belong to several organizations and none is active.',
      'missing',
    );
  if (!billingRoleAllows(actor.roles.get(organizationId)!, mode)) throw notPermitted();
  return organizationId;
}

/** Narrows an `organization_id` list filter to what the caller may read (unknown ids simply match nothing). */
export function organizationFilter(actor: MerchantActor, requested: string[] | undefined): string[] {
  const readable = readableOrganizationIds(actor);
  if (!requested || requested.length === 0) return readable;
  return requested.filter((id) => readable.includes(id));
}
