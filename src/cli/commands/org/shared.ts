import { bearer, call } from '../../client.js';
import { CliError } from '../../errors.js';
import { resolveTarget, type GlobalOptions, type Target } from '../../target.js';

export interface OrgWire {
  id: string;
  name: string;
  slug: string;
  logo?: string | null;
  createdAt: string;
}

export interface MemberWire {
  id: string;
  userId: string;
  organizationId: string;
  role: string;
  createdAt: string;
  user: { id: string; name: string; email: string };
}

export interface InvitationWire {
  id: string;
  email: string;
  role: string;
  status: string;
  organizationId: string;
  expiresAt: string;
}

/** Every org command needs a session; checking up front exits 4 before any request is made. */
export function signedIn(globals: GlobalOptions): Target {
  const target = resolveTarget(globals);
  bearer(target);
  return target;
}

export function listOrgs(target: Target): Promise<OrgWire[]> {
  return call<OrgWire[]>(target, 'GET', '/api/auth/organization/list');
}

/**
 * People type slugs, the routes want ids: the user's own list is searched for either, so an organization the user
 * cannot see reads as "not found" rather than as the server's permission error.
 */
export async function resolveOrg(target: Target, ref: string): Promise<OrgWire> {
  const found = (await listOrgs(target)).find((org) => org.id === ref || org.slug === ref);
  if (!found) throw new CliError(`no organization "${ref}" among yours (see \`till org list\`)`);
  return found;
}

/** The organization id to send, or undefined for the session's active organization. */
export async function orgIdOf(target: Target, ref: unknown): Promise<string | undefined> {
  return typeof ref === 'string' ? (await resolveOrg(target, ref)).id : undefined;
}

export async function listMembers(target: Target, organizationId: string | undefined): Promise<MemberWire[]> {
  const query = organizationId ? `?organizationId=${encodeURIComponent(organizationId)}` : '';
  return (await call<{ members: MemberWire[] }>(target, 'GET', `/api/auth/organization/list-members${query}`)).members;
}

/** Resolves a member id or e-mail (as a person types it) to the member, via list-members. */
export async function resolveMember(target: Target, organizationId: string | undefined, ref: string): Promise<MemberWire> {
  const lowered = ref.toLowerCase();
  const found = (await listMembers(target, organizationId)).find((member) => member.id === ref || member.user.email.toLowerCase() === lowered);
  if (!found) throw new CliError(`no member "${ref}" in the organization (see \`till org members list\`)`);
  return found;
}
