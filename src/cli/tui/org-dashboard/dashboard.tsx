import { Box, Text } from 'ink';
import { Footer } from './components/footer.js';
import { Header } from './components/header.js';
import { Section, columns, type Row } from './components/section.js';
import type { DashboardData, Snapshot } from './data.js';
import { selectedRow, type ViewState } from './model.js';
import { useDashboard } from './use-dashboard.js';

/** Expiry as a date and minute, which is all a person scanning invitations needs. */
const shortTime = (iso: string) => iso.replace('T', ' ').slice(0, 16);

function memberRows(snapshot: Snapshot, view: ViewState): Row[] {
  const choosing = view.mode.kind === 'choose-role' ? view.mode : null;
  const texts = columns(
    snapshot.members.map((member) => [
      member.user.name,
      member.user.email,
      choosing?.memberId === member.id ? `${member.role} → ${choosing.role}` : member.role,
    ]),
  );
  return snapshot.members.map((member, index) => ({
    key: member.id,
    text: texts[index]!,
    note: member.userId === snapshot.userId ? 'you' : undefined,
  }));
}

function teamRows(snapshot: Snapshot): Row[] {
  if (!('list' in snapshot.teams)) return [];
  const texts = columns(snapshot.teams.list.map((team) => [team.name, `created ${shortTime(team.createdAt)}`]));
  return snapshot.teams.list.map((team, index) => ({ key: team.id, text: texts[index]! }));
}

function invitationRows(snapshot: Snapshot): Row[] {
  const texts = columns(
    snapshot.invitations.map((invitation) => [
      invitation.email,
      invitation.role ?? '',
      `expires ${shortTime(invitation.expiresAt)}`,
    ]),
  );
  return snapshot.invitations.map((invitation, index) => ({ key: invitation.id, text: texts[index]! }));
}

/** The screen, given its data layer; `initial` skips the first load when the caller already has the data. */
export function OrgDashboard({ data, initial }: { data: DashboardData; initial?: Snapshot }) {
  const { snapshot, view } = useDashboard(data, initial);
  if (!snapshot) {
    return (
      <Box flexDirection="column">
        <Text dimColor>Loading the organization…</Text>
        <Footer mode={view.mode} section={view.section} status={view.status} />
      </Box>
    );
  }
  const focused = (section: ViewState['section']) => view.section === section;
  return (
    <Box flexDirection="column">
      <Header org={snapshot.org} />
      <Section
        title="Members"
        focused={focused('members')}
        rows={memberRows(snapshot, view)}
        selected={selectedRow(view, snapshot, 'members')}
        empty="no members"
      />
      <Section
        title="Teams"
        focused={focused('teams')}
        rows={teamRows(snapshot)}
        selected={selectedRow(view, snapshot, 'teams')}
        empty={'unavailable' in snapshot.teams ? `unavailable: ${snapshot.teams.unavailable}` : 'no teams'}
      />
      <Section
        title="Pending invitations"
        focused={focused('invitations')}
        rows={invitationRows(snapshot)}
        selected={selectedRow(view, snapshot, 'invitations')}
        empty="no pending invitations"
      />
      <Footer mode={view.mode} section={view.section} status={view.status} />
    </Box>
  );
}
