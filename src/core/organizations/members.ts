import type { AuthActor } from '../auth/sessions.js';
import type { OrganizationsConfig } from '../config/index.js';
import { transaction } from '../database/index.js';
import type { Db } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { orgError } from './errors.js';
import { invitationsRepository } from './invitations-repository.js';
import { teamsRepository } from './teams-repository.js';
import type { Invitation } from './invitations-repository.js';
import type { Member, MemberUser, Organization } from './repository.js';
import { membersRepository, organizationsRepository } from './repository.js';
import { CREATOR_ROLE, hasRole, roleAllows, unknownRoles } from './permissions.js';
import type { OrganizationDeps } from './service.js';

/** Better Auth's default membershipLimit: members an organization may have, and members one read returns. */
export const MEMBERSHIP_LIMIT = 100;

/** The configured membership limit (TILL_ORG_MEMBERSHIP_LIMIT), else Better Auth's default. */
export function membershipLimit(config: OrganizationsConfig): number {
  return config.membershipLimit ?? MEMBERSHIP_LIMIT;
}

export type MemberWithUser = { member: Member; user: MemberUser };

/** Better Auth answers unknown roles 400 ROLE_NOT_FOUND with the names in the message. */
export function assertKnownRoles(role: string | string[]): string {
  const unknown = unknownRoles(role);
  if (unknown.length > 0) throw new DomainError(400, 'ROLE_NOT_FOUND', `ROLE_NOT_FOUND: ${unknown.join(', ')}`);
  return Array.isArray(role) ? role.join(',') : role;
}

async function ownerCount(db: Db, organizationId: string): Promise<number> {
  return (await membersRepository(db).roles(organizationId)).filter((row) => hasRole(row.role, CREATOR_ROLE)).length;
}

/**
 * Refuses while the user is the only owner of an organization (account deletion would leave it ownerless). The
 * organizations are locked first so two owners deleting their accounts at once cannot both pass.
 */
export async function assertNotLastOwner(trx: Db, userId: string): Promise<void> {
  const owned = (await membersRepository(trx).listForUser(userId)).filter((member) =>
    hasRole(member.role, CREATOR_ROLE),
  );
  for (const member of owned) {
    await organizationsRepository(trx).lock(member.organizationId);
    if ((await ownerCount(trx, member.organizationId)) <= 1) {
      throw new DomainError(
        400,
        'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER',
        'You are the only owner of an organization: make another member an owner or delete the organization first',
      );
    }
  }
}

/** Which invitations a member may see: those granting the creator role only by its holders. */
export function visibleInvitations(member: Member, invitations: Invitation[]): Invitation[] {
  if (hasRole(member.role, CREATOR_ROLE)) return invitations;
  return invitations.filter((invitation) => !hasRole(invitation.role ?? '', CREATOR_ROLE));
}

export function createMemberService(
  deps: OrganizationDeps,
  targetId: (actor: AuthActor, organizationId?: string | null) => string | null,
) {
  const { db, sessions } = deps;
  const maxMembers = membershipLimit(deps.config);

  async function findOrganization(
    actor: AuthActor,
    query: { organizationId?: string; organizationSlug?: string },
  ): Promise<Organization | null> {
    const repo = organizationsRepository(db);
    const id = query.organizationSlug ? null : targetId(actor, query.organizationId);
    if (!query.organizationSlug && !id) return null;
    const organization = query.organizationSlug
      ? await repo.findBySlug(query.organizationSlug)
      : await repo.findById(id!);
    if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
    return organization;
  }

  /** Removes a member and drops the organization from the removed user's sessions, all in the caller's transaction. */
  async function removeMember(trx: Db, member: Member): Promise<void> {
    await membersRepository(trx).delete(member.id);
    await teamsRepository(trx).removeUserFromOrganizationTeams(member.organizationId, member.userId);
    await sessions.clearActiveOrganization(trx, member.organizationId, member.userId);
  }

  return {
    async getFull(
      actor: AuthActor,
      query: { organizationId?: string; organizationSlug?: string; membersLimit?: number },
    ) {
      const organization = await findOrganization(actor, query);
      if (!organization) return null;
      const caller = await membersRepository(db).find(organization.id, actor.user.id);
      if (!caller) throw orgError(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      const limit = Math.min(query.membersLimit ?? maxMembers, maxMembers);
      const members = await membersRepository(db).listWithUsers(organization.id, limit);
      // Invitations are shown to those who may send them, as in Better Auth.
      const invitations = roleAllows(caller.role, { invitation: ['create'] })
        ? visibleInvitations(caller, await invitationsRepository(db).listForOrganization(organization.id))
        : [];
      const counts = deps.config.teams ? await teamsRepository(db).memberCounts(organization.id) : null;
      const teams = counts
        ? (await teamsRepository(db).listForOrganization(organization.id)).map((team) => ({
            team,
            memberCount: counts.get(team.id) ?? 0,
          }))
        : null;
      return { organization, members, invitations, teams };
    },

    /** get-organization: the named or active organization to its members; null when there is none to name. */
    async get(
      actor: AuthActor,
      query: { organizationId?: string; organizationSlug?: string },
    ): Promise<Organization | null> {
      const organization = await findOrganization(actor, query);
      if (!organization) return null;
      if (!(await membersRepository(db).find(organization.id, actor.user.id)))
        throw orgError(403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      return organization;
    },

    /** get-active-member-role: the caller's role, or (for members only) another member's role, as Better Auth. */
    async activeRole(
      actor: AuthActor,
      query: { userId?: string; organizationId?: string; organizationSlug?: string },
    ): Promise<string> {
      const organization = query.organizationSlug
        ? await organizationsRepository(db).findBySlug(query.organizationSlug)
        : null;
      const id = organization?.id ?? (query.organizationSlug ? null : targetId(actor, query.organizationId));
      if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      const caller = await membersRepository(db).find(id, actor.user.id);
      if (!caller) throw orgError(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
      if (!query.userId || query.userId === actor.user.id) return caller.role;
      const other = await membersRepository(db).find(id, query.userId);
      if (!other) throw orgError(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
      return other.role;
    },

    async list(
      actor: AuthActor,
      query: { organizationId?: string; organizationSlug?: string; limit?: number; offset?: number },
    ) {
      const organization = await findOrganization(actor, query).catch((error: unknown) => {
        throw error instanceof DomainError && error.code === 'ORGANIZATION_NOT_FOUND'
          ? orgError(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
          : error;
      });
      if (!organization) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      if (!(await membersRepository(db).find(organization.id, actor.user.id)))
        throw orgError(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
      const limit = Math.min(query.limit ?? maxMembers, maxMembers);
      const members = await membersRepository(db).listWithUsers(organization.id, limit, query.offset ?? 0);
      return { members, total: await membersRepository(db).count(organization.id) };
    },

    async active(actor: AuthActor): Promise<MemberWithUser> {
      const id = actor.session.activeOrganizationId;
      if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      const member = await membersRepository(db).find(id, actor.user.id);
      const found = member ? await membersRepository(db).withUser(member.id) : null;
      if (!found) throw orgError(400, 'MEMBER_NOT_FOUND');
      return found;
    },

    /** Owner changes are serialized per organization (row lock), so concurrent demotions cannot leave none. */
    async updateRole(
      actor: AuthActor,
      input: { memberId: string; role: string | string[]; organizationId?: string },
    ): Promise<Member> {
      const id = targetId(actor, input.organizationId);
      if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      const role = assertKnownRoles(input.role);
      return transaction(db, async (trx) => {
        await organizationsRepository(trx).lock(id);
        const members = membersRepository(trx);
        const caller = await members.find(id, actor.user.id);
        if (!caller) throw orgError(400, 'MEMBER_NOT_FOUND');
        const target = await members.findById(input.memberId);
        if (!target) throw orgError(400, 'MEMBER_NOT_FOUND');
        if (target.organizationId !== id) throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER');
        const callerIsOwner = hasRole(caller.role, CREATOR_ROLE);
        const targetIsOwner = hasRole(target.role, CREATOR_ROLE);
        const grantsOwner = hasRole(role, CREATOR_ROLE);
        // Only an owner may grant the owner role or change an owner's roles.
        if ((targetIsOwner || grantsOwner) && !callerIsOwner)
          throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER');
        if (targetIsOwner && !grantsOwner && (await ownerCount(trx, id)) <= 1) {
          throw orgError(400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER');
        }
        if (!callerIsOwner && !roleAllows(caller.role, { member: ['update'] }))
          throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER');
        await members.updateRole(target.id, role);
        return { ...target, role };
      });
    },

    async remove(
      actor: AuthActor,
      input: { memberIdOrEmail: string; organizationId?: string },
    ): Promise<MemberWithUser> {
      const id = targetId(actor, input.organizationId);
      if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      return transaction(db, async (trx) => {
        await organizationsRepository(trx).lock(id);
        const members = membersRepository(trx);
        const caller = await members.find(id, actor.user.id);
        if (!caller) throw orgError(400, 'MEMBER_NOT_FOUND');
        const target = input.memberIdOrEmail.includes('@')
          ? await members.findByEmail(id, input.memberIdOrEmail)
          : await members.findById(input.memberIdOrEmail);
        if (!target) throw orgError(400, 'MEMBER_NOT_FOUND');
        if (hasRole(target.role, CREATOR_ROLE)) {
          // Better Auth gives a non-owner who tries to remove an owner the same answer as removing the last one.
          if (!hasRole(caller.role, CREATOR_ROLE) || (await ownerCount(trx, id)) <= 1) {
            throw orgError(400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER');
          }
        }
        if (!roleAllows(caller.role, { member: ['delete'] }))
          throw orgError(401, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER');
        if (target.organizationId !== id) throw orgError(400, 'MEMBER_NOT_FOUND');
        const withUser = await members.withUser(target.id);
        await removeMember(trx, target);
        return withUser!;
      });
    },

    async leave(actor: AuthActor, organizationId: string): Promise<MemberWithUser> {
      return transaction(db, async (trx) => {
        await organizationsRepository(trx).lock(organizationId);
        const members = membersRepository(trx);
        const member = await members.find(organizationId, actor.user.id);
        if (!member) throw orgError(400, 'MEMBER_NOT_FOUND');
        if (hasRole(member.role, CREATOR_ROLE) && (await ownerCount(trx, organizationId)) <= 1) {
          throw orgError(400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER');
        }
        const withUser = await members.withUser(member.id);
        await removeMember(trx, member);
        return withUser!;
      });
    },
  };
}
