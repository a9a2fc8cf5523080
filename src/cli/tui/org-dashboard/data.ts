import { call } from '../../client.js';
import { CliError } from '../../errors.js';
import type { Target } from '../../target.js';
import { resolveOrg, type InvitationWire, type MemberWire, type OrgWire } from '../../commands/org/shared.js';
import { teamCall, type TeamWire } from '../../commands/team/shared.js';

// The dashboard's data layer: everything that talks to the daemon, and nothing that renders. The screen takes a
// DashboardData, so tests can hand it one bound to a test daemon (or any other) and drive the keys.

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface Snapshot {
  org: OrgWire;
  /** Owners first, then admins, then members, each by e-mail: the daemon's own order ties on equal timestamps. */
  members: MemberWire[];
  /** The teams, or why there are none to show (teams turned off on the daemon, or an error listing them). */
  teams: { list: TeamWire[] } | { unavailable: string };
  /** Pending invitations only: accepted, rejected and canceled ones are history, not work. */
  invitations: InvitationWire[];
  /** The signed-in user, so their own row can say so (and they see why removing themselves is refused). */
  userId: string | null;
}

export interface DashboardData {
  load(): Promise<Snapshot>;
  updateMemberRole(memberId: string, role: Role): Promise<void>;
  removeMember(memberId: string): Promise<void>;
  cancelInvitation(invitationId: string): Promise<void>;
}

type FullOrganization = OrgWire & { members: MemberWire[] };

const rank = (role: string) => {
  const index = (ROLES as readonly string[]).indexOf(role);
  return index === -1 ? ROLES.length : index;
};

export function sortMembers(members: MemberWire[]): MemberWire[] {
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
  const query = () => `?organizationId=${encodeURIComponent(organizationId!)}`;

  async function loadTeams(): Promise<Snapshot['teams']> {
    try {
      return { list: await teamCall<TeamWire[]>(target, 'GET', `list-teams${query()}`) };
    } catch (error) {
      // Teams are optional on a daemon; the rest of the screen is still worth showing without them.
      return { unavailable: error instanceof Error ? error.message : String(error) };
    }
  }

  return {
    async load() {
      if (!organizationId && orgRef !== undefined) organizationId = (await resolveOrg(target, orgRef)).id;
      const full = await call<FullOrganization | null>(target, 'GET', `/api/auth/organization/get-full-organization${organizationId ? query() : ''}`);
      // null is the daemon's "no active organization" when none was named.
      if (!full) throw new CliError('no active organization; pass --org <id|slug> or run `till org use <id|slug>`');
      organizationId = full.id;
      const [invitations, teams, session] = await Promise.all([
        call<InvitationWire[]>(target, 'GET', `/api/auth/organization/list-invitations${query()}`),
        loadTeams(),
        call<{ user?: { id: string } } | null>(target, 'GET', '/api/auth/get-session'),
      ]);
      const { members, ...org } = full;
      return {
        org: { id: org.id, name: org.name, slug: org.slug, logo: org.logo, createdAt: org.createdAt },
        members: sortMembers(members),
        teams,
        invitations: invitations.filter((invitation) => invitation.status === 'pending'),
        userId: session?.user?.id ?? null,
      };
    },
    async updateMemberRole(memberId, role) {
      await call(target, 'POST', '/api/auth/organization/update-member-role', { body: { memberId, role, organizationId } });
    },
    async removeMember(memberId) {
      await call(target, 'POST', '/api/auth/organization/remove-member', { body: { memberIdOrEmail: memberId, organizationId } });
    },
    async cancelInvitation(invitationId) {
      await call(target, 'POST', '/api/auth/organization/cancel-invitation', { body: { invitationId } });
    },
  };
}
