import type { AuthActor } from '../auth/sessions.js';
import type { Db } from '../database/index.js';
import { transaction, isUniqueViolation } from '../database/index.js';
import { NotFoundError } from '../kernel/errors.js';
import { newAuthId } from '../kernel/ids.js';
import { orgError } from './errors.js';
import type { Member } from './repository.js';
import { membersRepository, organizationsRepository } from './repository.js';
import { roleAllows } from './permissions.js';
import type { OrganizationDeps } from './service.js';
import type { Team, TeamMember } from './teams-repository.js';
import { teamsRepository } from './teams-repository.js';

/** Better Auth's teams (contract §6.4), offered with TILL_ORG_TEAMS; without it the routes are unknown paths. */
export function createTeamService(
  deps: OrganizationDeps,
  targetId: (actor: AuthActor, id?: string | null) => string | null,
) {
  const { db, clock, config, sessions } = deps;

  function assertEnabled(): void {
    if (!config.teams) throw new NotFoundError();
  }

  function organizationOf(actor: AuthActor, organizationId?: string): string {
    const id = targetId(actor, organizationId);
    if (!id) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
    return id;
  }

  async function membership(organizationId: string, userId: string): Promise<Member | null> {
    return membersRepository(db).find(organizationId, userId);
  }

  return {
    assertEnabled,

    /** The default team of a new organization, with its creator in it (inside the create transaction). */
    async createDefault(trx: Db, organizationId: string, name: string, userId: string): Promise<Team> {
      const now = clock.now();
      const team: Team = { id: newAuthId(), name, organizationId, createdAt: now, updatedAt: now };
      await teamsRepository(trx).insert(team);
      await teamsRepository(trx).addMember({ id: newAuthId(), teamId: team.id, userId, createdAt: now });
      return team;
    },

    async create(actor: AuthActor, input: { name: string; organizationId?: string }): Promise<Team> {
      assertEnabled();
      const organizationId = organizationOf(actor, input.organizationId);
      const member = await membership(organizationId, actor.user.id);
      // Better Auth's wording for a non-member here (sic).
      if (!member) throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION');
      if (!roleAllows(member.role, { team: ['create'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION');
      const now = clock.now();
      const team: Team = { id: newAuthId(), name: input.name, organizationId, createdAt: now, updatedAt: now };
      await teamsRepository(db).insert(team);
      return team;
    },

    async update(
      actor: AuthActor,
      input: { teamId: string; data: { name?: string; organizationId?: string } },
    ): Promise<Team> {
      assertEnabled();
      const organizationId = organizationOf(actor, input.data.organizationId);
      const member = await membership(organizationId, actor.user.id);
      if (!member || !roleAllows(member.role, { team: ['update'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM');
      const team = await teamsRepository(db).find(organizationId, input.teamId);
      if (!team) throw orgError(400, 'TEAM_NOT_FOUND');
      if (input.data.name === undefined) return team;
      const updatedAt = clock.now();
      await teamsRepository(db).rename(team.id, input.data.name, updatedAt);
      return { ...team, name: input.data.name, updatedAt };
    },

    async remove(actor: AuthActor, input: { teamId: string; organizationId?: string }): Promise<void> {
      assertEnabled();
      const organizationId = organizationOf(actor, input.organizationId);
      const member = await membership(organizationId, actor.user.id);
      if (!member || actor.session.activeTeamId === input.teamId)
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM');
      if (!roleAllows(member.role, { team: ['delete'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION');
      await transaction(db, async (trx) => {
        // Serialized per organization so two removals cannot both see "not the last team".
        await organizationsRepository(trx).lock(organizationId);
        const teams = await teamsRepository(trx).listForOrganization(organizationId);
        if (!teams.some((team) => team.id === input.teamId)) throw orgError(400, 'TEAM_NOT_FOUND');
        if (teams.length <= 1 && !config.allowRemovingAllTeams) throw orgError(400, 'UNABLE_TO_REMOVE_LAST_TEAM');
        await teamsRepository(trx).delete(input.teamId);
      });
    },

    async list(actor: AuthActor, organizationId?: string): Promise<Team[]> {
      assertEnabled();
      const id = organizationOf(actor, organizationId);
      if (!(await membership(id, actor.user.id)))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION');
      return teamsRepository(db).listForOrganization(id);
    },

    async setActive(actor: AuthActor, teamId: string | null | undefined): Promise<Team | null> {
      assertEnabled();
      if (!teamId) {
        await sessions.setActiveOrganization(actor.session, actor.session.activeOrganizationId, null);
        return null;
      }
      const organizationId = actor.session.activeOrganizationId;
      if (!organizationId) throw orgError(400, 'NO_ACTIVE_ORGANIZATION');
      const team = await teamsRepository(db).find(organizationId, teamId);
      if (!team) throw orgError(400, 'TEAM_NOT_FOUND');
      if (!(await teamsRepository(db).findMember(team.id, actor.user.id)))
        throw orgError(403, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
      await sessions.setActiveOrganization(actor.session, organizationId, team.id);
      return team;
    },

    async listForUser(actor: AuthActor): Promise<Team[]> {
      assertEnabled();
      return teamsRepository(db).listForUser(actor.user.id);
    },

    async listMembers(actor: AuthActor, teamId?: string): Promise<TeamMember[]> {
      assertEnabled();
      const id = teamId || actor.session.activeTeamId;
      if (!id) throw orgError(400, 'YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM');
      // Better Auth lists a team's members only to its members, organization owners included (#3693).
      if (!(await teamsRepository(db).findMember(id, actor.user.id)))
        throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
      return teamsRepository(db).listMembers(id);
    },

    async addMember(
      actor: AuthActor,
      input: { teamId: string; userId: string; organizationId?: string },
    ): Promise<TeamMember> {
      assertEnabled();
      const organizationId = organizationOf(actor, input.organizationId);
      const member = await membership(organizationId, actor.user.id);
      if (!member) throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      if (!roleAllows(member.role, { member: ['update'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER');
      const limit = deps.config.maximumMembersPerTeam ?? null;
      try {
        return await transaction(db, async (trx) => {
          // Serialized per organization (as accepting a team invitation is), so parallel adds cannot overfill a team.
          await organizationsRepository(trx).lock(organizationId);
          if (!(await membersRepository(trx).find(organizationId, input.userId)))
            throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
          const team = await teamsRepository(trx).find(organizationId, input.teamId);
          if (!team) throw orgError(400, 'TEAM_NOT_FOUND');
          const existing = await teamsRepository(trx).findMember(team.id, input.userId);
          if (existing) return existing;
          if (limit !== null && (await teamsRepository(trx).countMembers(team.id)) >= limit)
            throw orgError(403, 'TEAM_MEMBER_LIMIT_REACHED');
          const added: TeamMember = { id: newAuthId(), teamId: team.id, userId: input.userId, createdAt: clock.now() };
          await teamsRepository(trx).addMember(added);
          return added;
        });
      } catch (error) {
        // Kept as a safety net: a unique violation means the same user is already in, so answer that row, as a
        // sequential second add would.
        if (isUniqueViolation(error)) {
          const found = await teamsRepository(db).findMember(input.teamId, input.userId);
          if (found) return found;
        }
        throw error;
      }
    },

    async removeMember(
      actor: AuthActor,
      input: { teamId: string; userId: string; organizationId?: string },
    ): Promise<void> {
      assertEnabled();
      const organizationId = organizationOf(actor, input.organizationId);
      const member = await membership(organizationId, actor.user.id);
      if (!member) throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION');
      if (!roleAllows(member.role, { member: ['delete'] }))
        throw orgError(403, 'YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER');
      const team = await teamsRepository(db).find(organizationId, input.teamId);
      if (!team) throw orgError(400, 'TEAM_NOT_FOUND');
      if ((await teamsRepository(db).removeMember(team.id, input.userId)) === 0)
        throw orgError(400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM');
    },
  };
}
