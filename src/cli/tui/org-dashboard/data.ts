import type { SessionAndUserWire } from '../../../core/auth/schemas.js';
import type {
  FullOrganizationWire,
  InvitationWire,
  MemberWithUserWire,
  OrganizationWire,
  TeamWire,
} from '../../../core/organizations/schemas.js';
import { listInvitations } from '../../commands/org/members.js';
import { listTeams } from '../../commands/team/shared.js';
import { call, orgQuery, resolveOrg, type Target } from '../../context.js';
import { CliError } from '../../errors.js';

// The dashboard's data layer: everything that talks to the daemon, and nothing that renders. The screen takes a
// DashboardData, so tests can hand it one bound to a test daemon (or any other) and drive the keys.

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

// The parts of the wire shapes the screen shows: tests build snapshots by hand, and need give no more than these.
export type DashboardOrganization = Pick<OrganizationWire, 'id' | 'name' | 'slug' | 'createdAt'> &
  Partial<Pick<OrganizationWire, 'logo'>>;
export type DashboardMember = Omit<MemberWithUserWire, 'user'> & {
  user: Pick<MemberWithUserWire['user'], 'id' | 'name' | 'email'>;
};
export type DashboardInvitation = Pick<
  InvitationWire,
  'id' | 'email' | 'role' | 'status' | 'organizationId' | 'expiresAt'
>;

export interface Snapshot {
  org: DashboardOrganization;
  /** Owners first, then admins, then members, each by e-mail: the daemon's own order ties on equal timestamps. */
  members: DashboardMember[];
  /** The teams, or why there are none to show (teams turned off on the daemon, or an error listing them). */
  teams: { list: TeamWire[] } | { unavailable: string };
  /** Pending invitations only: accepted, rejected and canceled ones are history, not work. */
  invitations: DashboardInvitation[];
  /** The signed-in user, so their own row can say so (and they see why removing themselves is refused). */
  userId: string | null;
}

export interface DashboardData {
  load(): Promise<Snapshot>;
  updateMemberRole(memberId: string, role: Role): Promise<void>;
  removeMember(memberId: string): Promise<void>;
  cancelInvitation(invitationId: string): Promise<void>;
}

const rank = (role: string) => {
  const index = (ROLES as readonly string[]).indexOf(role);
  return index === -1 ? ROLES.length : index;
};

export function sortMembers<Member extends DashboardMember>(members: Member[]): Member[] {
  return [...members].sort((a, b) => rank(a.role) - rank(b.role) || a.user.email.localeCompare(b.user.email));
}

/**
 * The dashboard over the same Better Auth organization routes the `till org` commands use. `orgRef` (an id or
 * slug, as --org takes) is resolved the way those commands resolve it; without one the session's active
 * organization is shown. Either way the id is pinned after the first load, so switching the active organization
 * from another terminal does not swap the screen's organization between two refreshes.
 */
export function createHttpData(target: Target, orgRef?: string): DashboardData {
  let organizationId: string | undefined;

  async function loadTeams(): Promise<Snapshot['teams']> {
    try {
      return { list: await listTeams(target, organizationId) };
    } catch (error) {
      // Teams are optional on a daemon; the rest of the screen is still worth showing without them.
      return { unavailable: error instanceof Error ? error.message : String(error) };
    }
  }

  return {
    async load() {
      if (!organizationId && orgRef !== undefined) organizationId = (await resolveOrg(target, orgRef)).id;
      const full = await call<FullOrganizationWire | null>(
        target,
        'GET',
        `/api/auth/organization/get-full-organization${orgQuery(organizationId)}`,
      );
      // null is the daemon's "no active organization" when none was named.
      if (!full) throw new CliError('no active organization; pass --org <id|slug> or run `till org use <id|slug>`');
      organizationId = full.id;
      const [invitations, teams, session] = await Promise.all([
        listInvitations(target, organizationId),
        loadTeams(),
        call<SessionAndUserWire | null>(target, 'GET', '/api/auth/get-session'),
      ]);
      const { members, ...org } = full;
      return {
        org: { id: org.id, name: org.name, slug: org.slug, logo: org.logo, createdAt: org.createdAt },
        members: sortMembers(members),
        teams,
        invitations: invitations.filter((invitation) => invitation.status === 'pending'),
        userId: session?.user.id ?? null,
      };
    },
    async updateMemberRole(memberId, role) {
      await call(target, 'POST', '/api/auth/organization/update-member-role', {
        body: { memberId, role, organizationId },
      });
    },
    async removeMember(memberId) {
      await call(target, 'POST', '/api/auth/organization/remove-member', {
        body: { memberIdOrEmail: memberId, organizationId },
      });
    },
    async cancelInvitation(invitationId) {
      await call(target, 'POST', '/api/auth/organization/cancel-invitation', { body: { invitationId } });
    },
  };
}
