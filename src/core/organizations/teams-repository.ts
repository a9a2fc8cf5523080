import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';

export interface Team {
  id: string;
  name: string;
  organizationId: string;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface TeamMember {
  id: string;
  teamId: string;
  userId: string;
  createdAt: Date;
}

type Row = Record<string, unknown>;

function teamFromRow(row: Row): Team {
  return {
    id: row.id as string,
    name: row.name as string,
    organizationId: row.organization_id as string,
    createdAt: toDate(row.created_at),
    updatedAt: toDateOrNull(row.updated_at),
  };
}

function teamMemberFromRow(row: Row): TeamMember {
  return {
    id: row.id as string,
    teamId: row.team_id as string,
    userId: row.user_id as string,
    createdAt: toDate(row.created_at),
  };
}

export function teamsRepository(db: Db) {
  return {
    async insert(team: Team): Promise<void> {
      await db('teams').insert({
        id: team.id,
        name: team.name,
        organization_id: team.organizationId,
        created_at: team.createdAt,
        updated_at: team.updatedAt,
      });
    },
    async find(organizationId: string, id: string): Promise<Team | null> {
      const row = await db('teams').where({ id, organization_id: organizationId }).first();
      return row ? teamFromRow(row) : null;
    },
    async findById(id: string): Promise<Team | null> {
      const row = await db('teams').where({ id }).first();
      return row ? teamFromRow(row) : null;
    },
    async listForOrganization(organizationId: string): Promise<Team[]> {
      const rows = await db('teams')
        .where({ organization_id: organizationId })
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc');
      return rows.map(teamFromRow);
    },
    async listForUser(userId: string): Promise<Team[]> {
      const rows = await db('teams as t')
        .join('team_members as tm', 'tm.team_id', 't.id')
        .where('tm.user_id', userId)
        .select('t.*')
        .orderBy('t.created_at', 'asc')
        .orderBy('t.id', 'asc');
      return rows.map(teamFromRow);
    },
    async rename(id: string, name: string, updatedAt: Date): Promise<void> {
      await db('teams').where({ id }).update({ name, updated_at: updatedAt });
    },
    async delete(id: string): Promise<void> {
      await db('teams').where({ id }).del();
    },
    async addMember(member: TeamMember): Promise<void> {
      await db('team_members').insert({
        id: member.id,
        team_id: member.teamId,
        user_id: member.userId,
        created_at: member.createdAt,
      });
    },
    async findMember(teamId: string, userId: string): Promise<TeamMember | null> {
      const row = await db('team_members').where({ team_id: teamId, user_id: userId }).first();
      return row ? teamMemberFromRow(row) : null;
    },
    async listMembers(teamId: string): Promise<TeamMember[]> {
      const rows = await db('team_members')
        .where({ team_id: teamId })
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc');
      return rows.map(teamMemberFromRow);
    },
    async countMembers(teamId: string): Promise<number> {
      const row = await db('team_members').where({ team_id: teamId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async removeMember(teamId: string, userId: string): Promise<number> {
      return db('team_members').where({ team_id: teamId, user_id: userId }).del();
    },
    /** Members per team of one organization (teams without members are absent), for get-full-organization. */
    async memberCounts(organizationId: string): Promise<Map<string, number>> {
      const rows = await db('team_members')
        .select('team_id')
        .count({ n: '*' })
        .whereIn('team_id', db('teams').select('id').where({ organization_id: organizationId }))
        .groupBy('team_id');
      return new Map((rows as Row[]).map((row) => [row.team_id as string, Number(row.n)]));
    },
    /** A member leaving an organization leaves its teams too. */
    async removeUserFromOrganizationTeams(organizationId: string, userId: string): Promise<void> {
      await db('team_members')
        .where({ user_id: userId })
        .whereIn('team_id', db('teams').select('id').where({ organization_id: organizationId }))
        .del();
    },
  };
}
