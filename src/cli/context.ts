import type { SessionAndUserWire } from '../core/auth/schemas.js';
import type { OrganizationWire } from '../core/organizations/schemas.js';
import { bearer, call } from './client.js';
import { CliError, NotSignedInError } from './errors.js';
import { resolveTarget, type GlobalOptions, type Target } from './target.js';

// What a command needs to reach the daemon, from one import: which daemon and as whom (target.ts), the HTTP client
// (client.ts), and the organization a command acts on.
export { bearer, call, type Auth, type CallOptions } from './client.js';
export { DEFAULT_URL, resolveTarget, type GlobalOptions, type Target } from './target.js';

/** For commands that need a session: checking up front exits 4 before any request is made. */
export function signedIn(globals: GlobalOptions): Target {
  const target = resolveTarget(globals);
  bearer(target);
  return target;
}

/** The signed-in user and session; Better Auth answers an unknown, expired or revoked session with a literal null. */
export async function currentSession(target: Target): Promise<SessionAndUserWire> {
  const session = await call<SessionAndUserWire | null>(target, 'GET', '/api/auth/get-session');
  if (!session) throw new NotSignedInError('not signed in: the session has expired or was revoked; run `till login`');
  return session;
}

export function listOrgs(target: Target): Promise<OrganizationWire[]> {
  return call<OrganizationWire[]>(target, 'GET', '/api/auth/organization/list');
}

/**
 * People type slugs, the routes want ids: the user's own list is searched for either, so an organization the user
 * cannot see reads as "not found" rather than as the server's permission error.
 */
export async function resolveOrg(target: Target, ref: string): Promise<OrganizationWire> {
  const found = (await listOrgs(target)).find((org) => org.id === ref || org.slug === ref);
  if (!found) throw new CliError(`no organization "${ref}" among yours (see \`till org list\`)`);
  return found;
}

/** The organization id to send, or undefined for the session's active organization. */
export async function orgIdOf(target: Target, ref: unknown): Promise<string | undefined> {
  return typeof ref === 'string' ? (await resolveOrg(target, ref)).id : undefined;
}

/** `?organizationId=…` for the organization routes, or nothing for the session's active organization. */
export function orgQuery(organizationId: string | undefined): string {
  return organizationId ? `?organizationId=${encodeURIComponent(organizationId)}` : '';
}

/** `--org <id|slug>` as a /v1 list's organization_id filter; without it the list spans every organization readable. */
export async function orgFilter(target: Target, query: URLSearchParams, org: string | undefined): Promise<void> {
  if (org !== undefined) query.set('organization_id', (await resolveOrg(target, org)).id);
}
