import type { Invitation } from './invitations-repository.js';
import type { Team, TeamMember } from './teams-repository.js';
import type { Member, MemberUser, Organization } from './repository.js';

/** Better Auth answers metadata parsed on create/update and as the stored JSON string elsewhere (contract §6.5). */
export function organizationToWire(org: Organization, metadata: 'parsed' | 'string' = 'string') {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    logo: org.logo,
    createdAt: org.createdAt.toISOString(),
    metadata:
      metadata === 'parsed' ? (org.metadata === null ? null : (JSON.parse(org.metadata) as unknown)) : org.metadata,
  };
}

export function memberToWire(member: Member) {
  return {
    id: member.id,
    organizationId: member.organizationId,
    userId: member.userId,
    role: member.role,
    createdAt: member.createdAt.toISOString(),
  };
}

export function memberWithUserToWire(entry: { member: Member; user: MemberUser }) {
  return {
    ...memberToWire(entry.member),
    user: { id: entry.user.id, name: entry.user.name, email: entry.user.email, image: entry.user.image },
  };
}

export function invitationToWire(invitation: Invitation) {
  return {
    id: invitation.id,
    organizationId: invitation.organizationId,
    email: invitation.email,
    role: invitation.role,
    teamId: invitation.teamId,
    status: invitation.status,
    expiresAt: invitation.expiresAt.toISOString(),
    createdAt: invitation.createdAt.toISOString(),
    inviterId: invitation.inviterId,
  };
}

export function teamToWire(team: Team) {
  return {
    id: team.id,
    name: team.name,
    organizationId: team.organizationId,
    createdAt: team.createdAt.toISOString(),
    updatedAt: team.updatedAt ? team.updatedAt.toISOString() : null,
  };
}

export function teamMemberToWire(member: TeamMember) {
  return { id: member.id, teamId: member.teamId, userId: member.userId, createdAt: member.createdAt.toISOString() };
}
