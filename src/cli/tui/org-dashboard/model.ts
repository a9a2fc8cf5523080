import { clampRow, cycle, followView, pressShared } from '../keys.js';
import type { DashboardView, KeyPress, PressOutcome, SharedMode } from '../keys.js';
import { ROLES, type Role, type Snapshot } from './data.js';

export { splitInput, type KeyPress } from '../keys.js';

// What the keys do, as a pure function of (view state, data, key) -> (next state, what to run). Keeping it free of
// React and Ink makes every binding testable without a terminal, and the hook only has to carry the result out.

export const SECTIONS = ['members', 'teams', 'invitations'] as const;
export type SectionId = (typeof SECTIONS)[number];

export type Command =
  | { kind: 'update-role'; memberId: string; role: Role; label: string }
  | { kind: 'remove-member'; memberId: string; label: string }
  | { kind: 'cancel-invitation'; invitationId: string; label: string };

export type Mode =
  SharedMode<Command> | { kind: 'choose-role'; memberId: string; label: string; current: string; role: Role };

export interface Status {
  /** done: a change went through; note: nothing changed (a hint, a declined prompt); error: the daemon said no. */
  tone: 'done' | 'note' | 'error';
  text: string;
}

export type ViewState = DashboardView<SectionId, Mode, Status>;

export type Outcome = PressOutcome<ViewState, Command>;

export const initialView: ViewState = {
  section: 'members',
  rows: { members: 0, teams: 0, invitations: 0 },
  mode: { kind: 'browse' },
  status: null,
};

export function rowCount(snapshot: Snapshot, section: SectionId): number {
  if (section === 'members') return snapshot.members.length;
  if (section === 'invitations') return snapshot.invitations.length;
  return 'list' in snapshot.teams ? snapshot.teams.list.length : 0;
}

/** The selected row, clamped: a refresh after a removal can leave the stored index past the end. */
export function selectedRow(state: ViewState, snapshot: Snapshot, section: SectionId = state.section): number {
  return clampRow(state.rows[section], rowCount(snapshot, section));
}

const idsOf = (snapshot: Snapshot, section: SectionId): string[] =>
  section === 'members'
    ? snapshot.members.map((m) => m.id)
    : section === 'invitations'
      ? snapshot.invitations.map((i) => i.id)
      : 'list' in snapshot.teams
        ? snapshot.teams.list.map((t) => t.id)
        : [];

/**
 * Keeps each section's selection on the same row across a refresh: members are sorted by role, so a role change
 * moves rows, and an index alone would leave the cursor on someone else. A row that is gone keeps its index
 * (clamped when drawn), which lands on its neighbour.
 */
export function followSelection(state: ViewState, before: Snapshot, after: Snapshot): ViewState {
  return followView(SECTIONS, state, idsOf, selectedRow, before, after);
}

/** What the status line says once a command has gone through. */
export function doneMessage(command: Command): string {
  if (command.kind === 'update-role') return `${command.label} is now ${command.role}`;
  if (command.kind === 'remove-member') return `Removed ${command.label}`;
  return `Canceled the invitation to ${command.label}`;
}

/** Browsing, the keys of this screen's own: r, d and x act on the selected member, c on the selected invitation. */
function browse(state: ViewState, snapshot: Snapshot, input: string): Outcome {
  const note = (text: string): Outcome => ({ state: { ...state, status: { tone: 'note', text } } });
  const row = selectedRow(state, snapshot);
  if (input === 'r' || input === 'd' || input === 'x') {
    const member = state.section === 'members' ? snapshot.members[row] : undefined;
    if (!member)
      return note(
        input === 'r'
          ? 'r changes the role of the selected member: Tab to Members first'
          : `${input} removes the selected member: Tab to Members first`,
      );
    const label = member.user.email;
    if (input === 'r') {
      const role = (ROLES as readonly string[]).includes(member.role) ? (member.role as Role) : 'member';
      return {
        state: {
          ...state,
          status: null,
          mode: { kind: 'choose-role', memberId: member.id, label, current: member.role, role },
        },
      };
    }
    const command: Command = { kind: 'remove-member', memberId: member.id, label };
    return {
      state: {
        ...state,
        status: null,
        mode: { kind: 'confirm', question: `Remove ${label} from ${snapshot.org.name}?`, command },
      },
    };
  }
  if (input === 'c') {
    const invitation = state.section === 'invitations' ? snapshot.invitations[row] : undefined;
    if (!invitation) return note('c cancels the selected invitation: Tab to Invitations first');
    const command: Command = { kind: 'cancel-invitation', invitationId: invitation.id, label: invitation.email };
    return {
      state: {
        ...state,
        status: null,
        mode: { kind: 'confirm', question: `Cancel the invitation to ${invitation.email}?`, command },
      },
    };
  }
  return { state };
}

export function press(state: ViewState, snapshot: Snapshot, input: string, key: KeyPress): Outcome {
  const mode = state.mode;
  const toBrowse = (text: string): Outcome => ({
    state: { ...state, mode: { kind: 'browse' }, status: { tone: 'note', text } },
  });
  switch (mode.kind) {
    case 'browse':
    case 'busy':
    case 'confirm':
      return pressShared(state, mode, input, key, {
        sections: SECTIONS,
        rowCount: rowCount(snapshot, state.section),
        selected: selectedRow(state, snapshot),
        browse: () => browse(state, snapshot, input),
        busyLabel: ({ question }) => question,
        declined: { tone: 'note', text: 'Nothing changed' },
      });
    case 'choose-role': {
      if (key.escape) return toBrowse('Role unchanged');
      if (key.return) {
        if (mode.role === mode.current) return toBrowse(`${mode.label} stays ${mode.current}`);
        const command: Command = { kind: 'update-role', memberId: mode.memberId, role: mode.role, label: mode.label };
        return {
          state: { ...state, mode: { kind: 'busy', label: `Changing the role of ${mode.label}` } },
          run: command,
        };
      }
      const direct = ROLES.find((role) => role[0] === input);
      let role = direct ?? mode.role;
      if (!direct && (key.upArrow || key.leftArrow || (key.tab && key.shift))) role = cycle(ROLES, mode.role, -1);
      else if (!direct && (key.downArrow || key.rightArrow || key.tab || input === 'r'))
        role = cycle(ROLES, mode.role, 1);
      return { state: { ...state, mode: { ...mode, role } } };
    }
  }
}
