import { z } from 'zod';
import type { AuthActor } from '../auth/sessions.js';
import { HOUR } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction, isUniqueViolation } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { newAuthId } from '../kernel/ids.js';
import { organizationInvitationMail } from '../mail/templates.js';
import { orgError } from './errors.js';
import type { Invitation } from './invitations-repository.js';
import { invitationsRepository } from './invitations-repository.js';
import { assertKnownRoles, membershipLimit, visibleInvitations } from './members.js';
import type { Member, Organization } from './repository.js';
import { membersRepository, organizationsRepository } from './repository.js';
import { teamsRepository } from './teams-repository.js';
import { CREATOR_ROLE, hasRole, roleAllows, unknownRoles } from './permissions.js';
import type { OrganizationDeps } from './service.js';

/** Better Auth's invitationExpiresIn (48 h) and invitationLimit (pending invitations per organization). */
export const INVITATION_TTL_MS = 48 * HOUR;
export const INVITATION_LIMIT = 100;

const email = z.string().email();

/**
 * The teams an invitation joins, checked against the organization and stored comma-separated as Better Auth
 * does, which is why a comma inside an id is refused (INVALID_TEAM_ID). null when none or teams are off.
 */
async function invitationTeams(
  trx: Db,
  organizationId: string,
  teamId: string | string[] | undefined,
  teams: boolean,
): Promise<string | null> {
  if (!teams || teamId === undefined) return null;
  const ids = [...new Set(Array.isArray(teamId) ? teamId : [teamId])];
  if (ids.length === 0) return null;
  for (const id of ids) {
    if (id.includes(',')) throw orgError(400, 'INVALID_TEAM_ID');
    if (!(await teamsRepository(trx).find(organizationId, id))) throw orgError(400, 'TEAM_NOT_FOUND');
  }
  return ids.join(',');
}

/** On accept: joins the invitation's teams that still exist; the active team is set only when there is exactly one. */
async function joinInvitationTeams(
  trx: Db,
  invitation: Invitation,
  userId: string,
  now: Date,
  teamLimit: number | null,
): Promise<string | null> {
  const joined: string[] = [];
  for (const id of invitation.teamId ? invitation.teamId.split(',') : []) {
    if (!(await teamsRepository(trx).find(invitation.organizationId, id))) continue;
    if (!(await teamsRepository(trx).findMember(id, userId))) {
      // Checked under the accept's organization lock, so parallel accepts cannot overfill a team.
      if (teamLimit !== null && (await teamsRepository(trx).countMembers(id)) >= teamLimit)
        throw orgError(403, 'TEAM_MEMBER_LIMIT_REACHED');
      await teamsRepository(trx).addMember({ id: newAuthId(), teamId: id, userId, createdAt: now });
    }
    joined.push(id);
  }
  return joined.length === 1 ? joined[0]! : null;
}

export function createInvitationService(
  deps: OrganizationDeps,
  targetId: (actor: AuthActor, id?: string | null) => string | null,
) {
  const { db, clock, sessions, mail } = deps;

  /** A pending, unexpired invitation addressed to the caller; anything else is INVITATION_NOT_FOUND. */
  async function forRecipient(
    actor: AuthActor,
    id: string,
    unverified:
      | 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION'
      | 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION',
    notFoundMessage?: string,
  ): Promise<Invitation> {
    const invitation = await invitationsRepository(db).findById(id);
    if (!invitation || invitation.status !== 'pending' || invitation.expiresAt.getTime() <= clock.now().getTime()) {
      throw orgError(400, 'INVITATION_NOT_FOUND', notFoundMessage);
    }
    if (invitation.email !== actor.user.email.toLowerCase())
      throw orgError(403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION');
    // Opt-in: proves the caller owns the invited address before membership follows from it.
    if (deps.config.requireEmailVerificationOnInvitation && !actor.user.emailVerified) throw orgError(403, unverified);
    return invitation;
  }

  async function sendMail(
    trx: Db,
    invitation: Invitation,
    organization: Organization,
    inviter: AuthActor['user'],
  ): Promise<void> {
    const url = `${deps.baseUrl}/api/auth/organization/get-invitation?id=${encodeURIComponent(invitation.id)}`;
    const content = organizationInvitationMail({
      inviterName: inviter.name,
      organizationName: organization.name,
      url,
      invitationId: invitation.id,
    });
    await mail.enqueue(trx, { kind: 'organization-invitation', to: invitation.email, userId: null, content });
  }

  return {
    async invite(
      actor: AuthActor,
      input: {
        email: string;
        role: string | string[];
        organizationId?: string;
        resend?: boolean;
        teamId?: string | string[];
      },
    ): Promise<Invitation> {
      const organizationId = targetId(actor, input.organizationId);
      if (!organizationId) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
      if (!email.safeParse(input.email).success) throw new DomainError(400, 'INVALID_EMAIL', 'Invalid email');
      const address = input.email.toLowerCase();
      return transaction(db, async (trx) => {
        // Serializes invites per organization so the pending-invitation limit holds under concurrency.
        const organization = await organizationsRepository(trx).lock(organizationId);
        if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
        const inviter = await membersRepository(trx).find(organizationId, actor.user.id);
        if (!inviter) throw orgError(400, 'MEMBER_NOT_FOUND');
        const unknown = unknownRoles(input.role);
        // Better Auth's invite answers unknown roles without a code.
        if (unknown.length > 0) throw new DomainError(400, undefined, `ROLE_NOT_FOUND: ${unknown.join(', ')}`);
        const role = assertKnownRoles(input.role);
        if (!roleAllows(inviter.role, { invitation: ['create'] }))
          throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION');
        if (hasRole(role, CREATOR_ROLE) && !hasRole(inviter.role, CREATOR_ROLE))
          throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE');
        if (await membersRepository(trx).findByEmail(organizationId, address))
          throw orgError(400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION');
        const teamId = await invitationTeams(trx, organizationId, input.teamId, deps.config.teams);
        const now = clock.now();
        const repo = invitationsRepository(trx);
        const pending = await repo.findPending(organizationId, address, now);
        if (pending) {
          if (!input.resend) throw orgError(400, 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION');
          const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
          await repo.extend(pending.id, expiresAt);
          const resent = { ...pending, expiresAt };
          await sendMail(trx, resent, organization, actor.user);
          return resent;
        }
        if ((await repo.countPending(organizationId, now)) >= INVITATION_LIMIT)
          throw orgError(403, 'INVITATION_LIMIT_REACHED');
        const invitation: Invitation = {
          id: newAuthId(),
          organizationId,
          email: address,
          role,
          teamId,
          status: 'pending',
          inviterId: actor.user.id,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
          createdAt: now,
        };
        await repo.insert(invitation);
        await sendMail(trx, invitation, organization, actor.user);
        return invitation;
      });
    },

    /**
     * Joins the organization. The organization row is locked while members are counted and the member is
     * inserted, so parallel accepts never push it past the membership limit.
     */
    async accept(actor: AuthActor, invitationId: string): Promise<{ invitation: Invitation; member: Member }> {
      const found = await forRecipient(
        actor,
        invitationId,
        'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
      );
      try {
        return await transaction(db, async (trx) => {
          await organizationsRepository(trx).lock(found.organizationId);
          if ((await membersRepository(trx).count(found.organizationId)) >= membershipLimit(deps.config))
            throw orgError(403, 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED');
          if (!(await invitationsRepository(trx).settle(found.id, 'accepted')))
            throw orgError(400, 'INVITATION_NOT_FOUND');
          const member: Member = {
            id: newAuthId(),
            organizationId: found.organizationId,
            userId: actor.user.id,
            role: found.role ?? 'member',
            createdAt: clock.now(),
          };
          await membersRepository(trx).insert(member);
          const activeTeamId = await joinInvitationTeams(
            trx,
            found,
            actor.user.id,
            member.createdAt,
            deps.config.maximumMembersPerTeam ?? null,
          );
          await sessions.setActiveOrganization(actor.session, found.organizationId, activeTeamId, trx);
          return { invitation: { ...found, status: 'accepted' as const }, member };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw orgError(400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION');
        throw error;
      }
    },

    async reject(actor: AuthActor, invitationId: string): Promise<Invitation> {
      // Better Auth's reject says "Invitation not found!".
      const found = await forRecipient(
        actor,
        invitationId,
        'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
        'Invitation not found!',
      );
      if (!(await invitationsRepository(db).settle(found.id, 'rejected')))
        throw orgError(400, 'INVITATION_NOT_FOUND', 'Invitation not found!');
      return { ...found, status: 'rejected' };
    },

    async cancel(actor: AuthActor, invitationId: string): Promise<Invitation> {
      const found = await invitationsRepository(db).findById(invitationId);
      if (!found) throw orgError(400, 'INVITATION_NOT_FOUND');
      const member = await membersRepository(db).find(found.organizationId, actor.user.id);
      if (!member) throw orgError(400, 'MEMBER_NOT_FOUND');
      if (!roleAllows(member.role, { invitation: ['cancel'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION');
      if (!(await invitationsRepository(db).settle(found.id, 'canceled'))) throw orgError(400, 'INVITATION_NOT_FOUND');
      return { ...found, status: 'canceled' };
    },

    async get(actor: AuthActor, id: string) {
      const invitation = await forRecipient(actor, id, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION');
      const organization = await organizationsRepository(db).findById(invitation.organizationId);
      if (!organization) throw orgError(400, 'ORGANIZATION_NOT_FOUND');
      const inviter = await membersRepository(db).find(invitation.organizationId, invitation.inviterId);
      const withUser = inviter ? await membersRepository(db).withUser(inviter.id) : null;
      if (!withUser) throw orgError(400, 'INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION');
      return { invitation, organization, inviterEmail: withUser.user.email };
    },

    async listForOrganization(actor: AuthActor, organizationId?: string): Promise<Invitation[]> {
      const id = targetId(actor, organizationId);
      if (!id) throw new DomainError(400, undefined, 'Organization ID is required');
      const member = await membersRepository(db).find(id, actor.user.id);
      if (!member) throw orgError(403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION');
      if (!roleAllows(member.role, { invitation: ['create'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS');
      return visibleInvitations(member, await invitationsRepository(db).listForOrganization(id));
    },

    async listForUser(actor: AuthActor): Promise<Invitation[]> {
      if (!actor.user.emailVerified) throw orgError(403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION');
      return invitationsRepository(db).listPendingForEmail(actor.user.email.toLowerCase(), clock.now());
    },
  };
}
