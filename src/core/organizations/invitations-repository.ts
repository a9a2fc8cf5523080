import type { Db } from '../database/index.js';
import { toDate } from '../database/index.js';

export type InvitationStatus = 'pending' | 'accepted' | 'rejected' | 'canceled';

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: string | null;
  teamId: string | null;
  status: InvitationStatus;
  inviterId: string;
  expiresAt: Date;
  createdAt: Date;
}

type Row = Record<string, unknown>;

function invitationFromRow(row: Row): Invitation {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    email: row.email as string,
    role: (row.role as string | null) ?? null,
    teamId: (row.team_id as string | null) ?? null,
    status: row.status as InvitationStatus,
    inviterId: row.inviter_id as string,
    expiresAt: toDate(row.expires_at),
    createdAt: toDate(row.created_at),
  };
}

export function invitationsRepository(db: Db) {
  return {
    async insert(invitation: Invitation): Promise<void> {
      await db('invitations').insert({
        id: invitation.id,
        organization_id: invitation.organizationId,
        email: invitation.email,
        role: invitation.role,
        team_id: invitation.teamId,
        status: invitation.status,
        inviter_id: invitation.inviterId,
        expires_at: invitation.expiresAt,
        created_at: invitation.createdAt,
      });
    },
    async findById(id: string): Promise<Invitation | null> {
      const row = await db('invitations').where({ id }).first();
      return row ? invitationFromRow(row) : null;
    },
    async findPending(organizationId: string, email: string, now: Date): Promise<Invitation | null> {
      const row = await db('invitations')
        .where({ organization_id: organizationId, email, status: 'pending' })
        .andWhere('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .first();
      return row ? invitationFromRow(row) : null;
    },
    async countPending(organizationId: string, now: Date): Promise<number> {
      const row = await db('invitations')
        .where({ organization_id: organizationId, status: 'pending' })
        .andWhere('expires_at', '>', now)
        .count({ n: '*' })
        .first();
      return Number(row?.n ?? 0);
    },
    async listForOrganization(organizationId: string): Promise<Invitation[]> {
      const rows = await db('invitations')
        .where({ organization_id: organizationId })
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc');
      return rows.map(invitationFromRow);
    },
    async listPendingForEmail(email: string, now: Date): Promise<Invitation[]> {
      const rows = await db('invitations')
        .where({ email, status: 'pending' })
        .andWhere('expires_at', '>', now)
        .orderBy('created_at', 'asc');
      return rows.map(invitationFromRow);
    },
    /** Moves a pending invitation on; false when another request got there first. */
    async settle(id: string, status: InvitationStatus): Promise<boolean> {
      return (await db('invitations').where({ id, status: 'pending' }).update({ status })) === 1;
    },
    async extend(id: string, expiresAt: Date): Promise<void> {
      await db('invitations').where({ id }).update({ expires_at: expiresAt });
    },
  };
}
