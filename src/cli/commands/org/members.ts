import type { InvitationWire, MemberWithUserWire } from '../../../core/organizations/schemas.js';
import { call, orgQuery, type Target } from '../../context.js';
import { CliError } from '../../errors.js';

export async function listMembers(target: Target, organizationId: string | undefined): Promise<MemberWithUserWire[]> {
  return (
    await call<{ members: MemberWithUserWire[] }>(
      target,
      'GET',
      `/api/auth/organization/list-members${orgQuery(organizationId)}`,
    )
  ).members;
}

/** Resolves a member id or e-mail (as a person types it) to the member, via list-members. */
export async function resolveMember(
  target: Target,
  organizationId: string | undefined,
  ref: string,
): Promise<MemberWithUserWire> {
  const lowered = ref.toLowerCase();
  const found = (await listMembers(target, organizationId)).find(
    (member) => member.id === ref || member.user.email.toLowerCase() === lowered,
  );
  if (!found) throw new CliError(`no member "${ref}" in the organization (see \`till org members list\`)`);
  return found;
}

/** An organization's invitations, or the active organization's when organizationId is undefined. */
export function listInvitations(target: Target, organizationId: string | undefined): Promise<InvitationWire[]> {
  return call<InvitationWire[]>(target, 'GET', `/api/auth/organization/list-invitations${orgQuery(organizationId)}`);
}
