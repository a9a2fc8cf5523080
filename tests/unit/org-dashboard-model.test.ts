import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/cli/tui/org-dashboard/data.js';
import {
  followSelection,
  initialView,
  press,
  splitInput,
  type KeyPress,
  type ViewState,
} from '../../src/cli/tui/org-dashboard/model.js';

// The key bindings without a terminal or a daemon; tests/cli/org-dashboard.test.tsx drives the same keys through
// Ink against a real daemon.

const NO_KEY: KeyPress = {
  tab: false,
  shift: false,
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  return: false,
  escape: false,
  ctrl: false,
};
const key = (overrides: Partial<KeyPress> = {}) => ({ ...NO_KEY, ...overrides });

const member = (id: string, role: string) => ({
  id,
  userId: `u-${id}`,
  organizationId: 'o',
  role,
  createdAt: '',
  user: { id: `u-${id}`, name: id, email: `${id}@example.com` },
});
const snapshot: Snapshot = {
  org: { id: 'o', name: 'Acme', slug: 'acme', createdAt: '' },
  members: [member('olga', 'owner'), member('mia', 'member')],
  teams: { unavailable: 'teams are off' },
  invitations: [
    { id: 'i1', email: 'new@example.com', role: 'member', status: 'pending', organizationId: 'o', expiresAt: '' },
  ],
  userId: 'u-olga',
};

function run(keys: Array<[string, Partial<KeyPress>?]>, state: ViewState = initialView) {
  let outcome = { state } as ReturnType<typeof press>;
  for (const [input, overrides] of keys) outcome = press(outcome.state, snapshot, input, key(overrides));
  return outcome;
}

describe('org dashboard keys', () => {
  it('quits on q and on Esc, but Esc in a prompt only closes the prompt', () => {
    expect(run([['q']]).quit).toBe(true);
    expect(run([['', { escape: true }]]).quit).toBe(true);
    const closed = run([['r'], ['', { escape: true }]]);
    expect(closed.quit).toBeUndefined();
    expect(closed.state.mode).toEqual({ kind: 'browse' });
  });

  it('moves between sections with Tab, Shift+Tab and the side arrows, and clamps rows', () => {
    expect(run([['\t', { tab: true }]]).state.section).toBe('teams');
    expect(run([['', { tab: true, shift: true }]]).state.section).toBe('invitations');
    expect(
      run([
        ['', { rightArrow: true }],
        ['', { rightArrow: true }],
        ['', { rightArrow: true }],
      ]).state.section,
    ).toBe('members');
    expect(run([['', { downArrow: true }], ['', { downArrow: true }], ['j']]).state.rows.members).toBe(1);
    expect(run([['', { upArrow: true }]]).state.rows.members).toBe(0);
  });

  it('asks before removing or canceling, and only y goes ahead', () => {
    const asked = run([['', { downArrow: true }], ['d']]);
    expect(asked.state.mode).toMatchObject({ kind: 'confirm', question: 'Remove mia@example.com from Acme?' });
    expect(press(asked.state, snapshot, 'n', key()).run).toBeUndefined();
    expect(press(asked.state, snapshot, '', key({ return: true })).run).toBeUndefined();
    expect(press(asked.state, snapshot, 'y', key()).run).toEqual({
      kind: 'remove-member',
      memberId: 'mia',
      label: 'mia@example.com',
    });
    const cancel = run([['', { leftArrow: true }], ['c'], ['y']]);
    expect(cancel.run).toEqual({ kind: 'cancel-invitation', invitationId: 'i1', label: 'new@example.com' });
    expect(cancel.state.mode.kind).toBe('busy');
    // Keys while busy do nothing.
    expect(press(cancel.state, snapshot, 'q', key()).quit).toBeUndefined();
  });

  it('chooses a role by cycling or by its initial, and Enter on the current role changes nothing', () => {
    expect(run([['', { downArrow: true }], ['r'], ['', { upArrow: true }], ['', { return: true }]]).run).toMatchObject({
      kind: 'update-role',
      memberId: 'mia',
      role: 'admin',
    });
    expect(run([['', { downArrow: true }], ['r'], ['o'], ['', { return: true }]]).run).toMatchObject({ role: 'owner' });
    expect(run([['', { downArrow: true }], ['r'], ['r'], ['', { return: true }]]).run).toMatchObject({ role: 'owner' });
    const same = run([['r'], ['', { return: true }]]);
    expect(same.run).toBeUndefined();
    expect(same.state.status).toEqual({ tone: 'note', text: 'olga@example.com stays owner' });
  });

  it('explains member keys pressed elsewhere instead of acting', () => {
    const outcome = run([['\t', { tab: true }], ['d']]);
    expect(outcome.state.mode.kind).toBe('browse');
    expect(outcome.state.status?.text).toContain('Tab to Members');
  });

  it('keeps the selection on the same member when a refresh reorders or removes rows', () => {
    const before: Snapshot = {
      ...snapshot,
      members: [member('olga', 'owner'), member('adam', 'admin'), member('mia', 'member')],
    };
    const reordered: Snapshot = {
      ...snapshot,
      members: [member('olga', 'owner'), member('mia', 'admin'), member('adam', 'member')],
    };
    const onAdam: ViewState = { ...initialView, rows: { ...initialView.rows, members: 1 } };
    expect(followSelection(onAdam, before, reordered).rows.members).toBe(2);
    const removed: Snapshot = { ...snapshot, members: [member('olga', 'owner'), member('mia', 'member')] };
    expect(followSelection(onAdam, before, removed).rows.members).toBe(1);
  });

  it('splits text that arrives in one read into one press per character', () => {
    expect(splitInput('rm', key()).map((p) => p.input)).toEqual(['r', 'm']);
    expect(splitInput('\tc', key())[0]!.key.tab).toBe(true);
    expect(splitInput('m\r', key())[1]!.key.return).toBe(true);
    expect(splitInput('q', key())).toEqual([{ input: 'q', key: key() }]);
  });
});
