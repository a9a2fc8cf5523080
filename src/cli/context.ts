import type { SessionAndUserWire } from '../core/auth/schemas.js';
import type { OrganizationWire } from '../core/organizations/schemas.js';
import { bearer, call } from './client.js';
import { CliError, NotSignedInError, UsageError } from './errors.js';
import { info } from './output.js';
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

/** The flags that choose the organization a command acts on (`--all-orgs` only on lists), and --json. */
export interface OrgChoice {
  org?: string;
  allOrgs?: boolean;
  json?: boolean;
}

/** Organization access tokens belong to one organization, which the daemon applies itself. */
function isOrganizationToken(target: Target): boolean {
  return target.token?.startsWith('till_oat_') === true;
}

/**
 * The organization a command acts on: `--org`, else the session's active one, else the user's only one; null for
 * `--all-orgs` and for an organization access token (bound to its own). Several organizations and none active is
 * a usage error rather than a guess. Without --json the choice is said on stderr ("Organization: acme"), so output
 * is never read as another organization's.
 */
export async function actingOrg(target: Target, choice: OrgChoice): Promise<OrganizationWire | null> {
  if (choice.org !== undefined && choice.allOrgs) throw new UsageError('give --org or --all-orgs, not both');
  if (choice.allOrgs) {
    if (!choice.json) info('Organization: all of yours');
    return null;
  }
  if (choice.org === undefined && isOrganizationToken(target)) return null;
  let org: OrganizationWire;
  if (choice.org !== undefined) org = await resolveOrg(target, choice.org);
  else {
    const [session, orgs] = await Promise.all([currentSession(target), listOrgs(target)]);
    const active = orgs.find((candidate) => candidate.id === session.session.activeOrganizationId);
    if (active) org = active;
    else if (orgs.length === 1) org = orgs[0]!;
    else if (orgs.length === 0)
      throw new CliError('you belong to no organization yet; create one with `till org create`');
    else
      throw new UsageError(
        'no active organization and you belong to several: choose one with `till org use <slug>`, or pass --org <id|slug> (--all-orgs for every one)',
      );
  }
  if (!choice.json) info(`Organization: ${org.slug}`);
  return org;
}

/** A /v1 list's organization_id filter: the acting organization (see actingOrg), or none with --all-orgs. */
export async function orgFilter(target: Target, query: URLSearchParams, choice: OrgChoice): Promise<void> {
  const org = await actingOrg(target, choice);
  if (org) query.set('organization_id', org.id);
}

/** A /v1 create's organization_id: the acting organization, named rather than left to the daemon's default. */
export async function createIn(
  target: Target,
  body: Record<string, unknown>,
  choice: OrgChoice & { quiet?: boolean },
): Promise<void> {
  // -q promises only the id: the organization goes unsaid, as with --json.
  const org = await actingOrg(target, { ...choice, json: choice.json || choice.quiet, allOrgs: false });
  if (org) body.organization_id = org.id;
}
