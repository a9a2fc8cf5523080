import { fileURLToPath } from 'node:url';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/cli/target.js';
import { createHttpData, type DashboardData } from '../../src/cli/tui/org-dashboard/data.js';
import { OrgDashboard } from '../../src/cli/tui/org-dashboard/index.js';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/eventually.js';
import type { TestClient } from '../helpers/http.js';
import { uniqueEmail } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';
import { useSandboxes } from './till.js';

const TEAMS_ON = { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false };
const daemon = useTestDaemon({ organizations: TEAMS_ON });

const DOWN = '\u001B[B';
const ESC = '\u001B';

afterEach(() => cleanup());

/**
 * The HTTP data layer the command uses, bound to a test daemon, with every call it makes tracked: waiting for a
 * frame first waits for the daemon's answers, so no test guesses how long a request takes.
 */
function tracked(data: DashboardData) {
  const pending = new Set<Promise<unknown>>();
  const track =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    (...args: A) => {
      const promise = fn(...args);
      pending.add(promise);
      void promise.then(
        () => pending.delete(promise),
        () => pending.delete(promise),
      );
      return promise;
    };
  const wrapped: DashboardData = {
    load: track(data.load),
    updateMemberRole: track(data.updateMemberRole),
    removeMember: track(data.removeMember),
    cancelInvitation: track(data.cancelInvitation),
  };
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { data: wrapped, idle };
}

/** An organization with an owner (the dashboard's user), an admin, a member, a team and a pending invitation. */
async function organization(d: TestDaemon, teams = true) {
  const owner = await signedInUser(d, 'Olga Owner');
  const org = await createOrganization(owner.client, { name: 'Dash Co' });
  const admin = await signedInUser(d, 'Adam Admin');
  const member = await signedInUser(d, 'Mia Member');
  const adminMemberId = await addMember(d, org.id, admin.user.id, 'admin');
  const memberId = await addMember(d, org.id, member.user.id, 'member');
  if (teams) {
    const team = await owner.client.post('/api/auth/organization/create-team', {
      name: 'Support',
      organizationId: org.id,
    });
    expect(team.status, team.text).toBe(200);
  }
  const invitee = uniqueEmail('invitee');
  const invited = await owner.client.post('/api/auth/organization/invite-member', {
    email: invitee,
    role: 'member',
    organizationId: org.id,
  });
  expect(invited.status, invited.text).toBe(200);
  return { owner, org, admin, member, adminMemberId, memberId, invitee, invitationId: invited.json.id as string };
}

/** The dashboard as `till org dashboard` builds it: a target from TILL_URL and TILL_TOKEN, and the HTTP data layer. */
function dashboard(d: TestDaemon, token: string, orgRef?: string) {
  const target = resolveTarget({}, { TILL_URL: d.url, TILL_TOKEN: token, XDG_CONFIG_HOME: '/nonexistent-till-config' });
  const { data, idle } = tracked(createHttpData(target, orgRef));
  const screen = render(<OrgDashboard data={data} />);
  const frame = () => screen.lastFrame() ?? '';
  /** Waits (for the daemon, then for Ink) until the frame passes `test`, and fails showing the last frame if it never does. */
  const until = async (test: (frame: string) => boolean, what: string) => {
    const passed = await eventually(async () => {
      await idle();
      return test(frame());
    }, true);
    expect(passed, `expected the frame to show ${what}; last frame:\n${frame()}`).toBe(true);
  };
  const selected = () =>
    frame()
      .split('\n')
      .find((line) => line.includes('›')) ?? '';
  const press = async (keys: string, expected: (frame: string) => boolean, what: string) => {
    screen.stdin.write(keys);
    await until(expected, what);
  };
  return { screen, frame, until, selected, press };
}

async function membersOf(client: TestClient, organizationId: string) {
  const response = await client.get('/api/auth/organization/list-members', { query: { organizationId } });
  expect(response.status, response.text).toBe(200);
  return response.json.members as Array<{ id: string; role: string; user: { email: string } }>;
}

describe('till org dashboard (Ink screen against a real daemon)', () => {
  it('shows the active organization with its members and roles, its teams and its pending invitations', async () => {
    const setup = await organization(daemon());
    const ui = dashboard(daemon(), setup.owner.token);
    await ui.until((f) => f.includes('Dash Co') && f.includes(setup.invitee), 'the organization');
    const f = ui.frame();
    expect(f).toContain(setup.org.slug);
    expect(f).toMatch(new RegExp(`${setup.owner.email}\\s+owner\\s+you`));
    expect(f).toMatch(new RegExp(`${setup.admin.email}\\s+admin`));
    expect(f).toMatch(new RegExp(`${setup.member.email}\\s+member`));
    expect(f).toContain('Members (3)');
    // The default team named after the organization, and the one made here.
    expect(f).toContain('Teams (2)');
    expect(f).toContain('Support');
    expect(f).toContain('Pending invitations (1)');
    // Owners first: the selection starts on the owner.
    expect(ui.selected()).toContain(setup.owner.email);
  });

  it('changes a member role with r, a choice and Enter, and shows the daemon refusing one', async () => {
    const setup = await organization(daemon());
    const ui = dashboard(daemon(), setup.owner.token, setup.org.slug);
    await ui.until((f) => f.includes(setup.member.email), 'the members');
    await ui.press(DOWN, () => ui.selected().includes(setup.admin.email), 'the admin selected');
    await ui.press(DOWN, () => ui.selected().includes(setup.member.email), 'the member selected');
    await ui.press('r', (f) => f.includes(`Role for ${setup.member.email}`), 'the role prompt');
    // The choice starts at the current role; up goes to admin.
    await ui.press('\u001B[A', (f) => f.includes('member → admin'), 'admin chosen');
    await ui.press('\r', (f) => f.includes(`${setup.member.email} is now admin`), 'the change done');
    expect((await membersOf(setup.owner.client, setup.org.id)).find((m) => m.id === setup.memberId)?.role).toBe(
      'admin',
    );
    // Refreshed: two admins now, sorted by e-mail among themselves, and the selection stays on the member changed.
    expect(ui.frame()).toMatch(new RegExp(`${setup.member.email}\\s+admin`));
    expect(ui.selected()).toContain(setup.member.email);

    // Esc leaves the prompt without asking the daemon anything.
    await ui.press('r', (f) => f.includes('Role for'), 'the role prompt');
    await ui.press('o', (f) => f.includes('→ owner'), 'owner chosen');
    await ui.press(ESC, (f) => f.includes('Role unchanged'), 'the prompt closed');

    // The only owner demoting themselves is the daemon's error, shown in the status line; nothing changes.
    await ui.press('\u001B[A\u001B[A\u001B[A', () => ui.selected().includes(setup.owner.email), 'the owner selected');
    await ui.press('r', (f) => f.includes(`Role for ${setup.owner.email}`), 'the role prompt');
    await ui.press('m', (f) => f.includes('owner → member'), 'member chosen');
    await ui.press('\r', (f) => f.includes('✗ You cannot leave the organization without an owner'), 'the error');
    expect(ui.frame()).toContain('YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER');
    expect(
      (await membersOf(setup.owner.client, setup.org.id)).find((m) => m.user.email === setup.owner.email)?.role,
    ).toBe('owner');
  });

  it('removes a member only after y, and n keeps them', async () => {
    const setup = await organization(daemon());
    const ui = dashboard(daemon(), setup.owner.token);
    await ui.until((f) => f.includes(setup.member.email), 'the members');
    await ui.press(`${DOWN}${DOWN}`, () => ui.selected().includes(setup.member.email), 'the member selected');

    await ui.press('d', (f) => f.includes(`Remove ${setup.member.email} from Dash Co? [y/N]`), 'the confirmation');
    await ui.press('n', (f) => f.includes('Nothing changed'), 'the refusal');
    expect((await membersOf(setup.owner.client, setup.org.id)).map((m) => m.id)).toContain(setup.memberId);

    // Keys typed faster than Ink reads them arrive as one chunk, and still count one by one.
    await ui.press('xy', (f) => f.includes(`Removed ${setup.member.email}`), 'the removal');
    expect((await membersOf(setup.owner.client, setup.org.id)).map((m) => m.id)).not.toContain(setup.memberId);
    expect(ui.frame()).toContain('Members (2)');
    expect(
      ui
        .frame()
        .split('\n')
        .filter((line) => line.includes(setup.member.email)),
    ).toEqual([`✓ Removed ${setup.member.email}`]);
    // The selection stays on a row that exists.
    expect(ui.selected()).toContain(setup.admin.email);
  });

  it('cancels an invitation after confirmation, with Tab to reach it', async () => {
    const setup = await organization(daemon());
    const ui = dashboard(daemon(), setup.owner.token);
    await ui.until((f) => f.includes(setup.invitee), 'the invitation');
    // c on a member does nothing but say where it works.
    await ui.press('c', (f) => f.includes('Tab to Invitations first'), 'the hint');
    await ui.press('\t', (f) => f.includes('▸ Teams'), 'the teams section');
    await ui.press('\t', (f) => f.includes('▸ Pending invitations'), 'the invitations section');
    expect(ui.selected()).toContain(setup.invitee);
    await ui.press('c', (f) => f.includes(`Cancel the invitation to ${setup.invitee}? [y/N]`), 'the confirmation');
    await ui.press('y', (f) => f.includes(`Canceled the invitation to ${setup.invitee}`), 'the cancellation');
    const invitations = await setup.owner.client.get('/api/auth/organization/list-invitations', {
      query: { organizationId: setup.org.id },
    });
    expect(invitations.json).toEqual([expect.objectContaining({ id: setup.invitationId, status: 'canceled' })]);
    expect(ui.frame()).toContain('no pending invitations');
  });

  it('shows the rest of the organization when the daemon has teams turned off', async () => {
    const teamsOff = await startTestDaemon({ organizations: { ...TEAMS_ON, teams: false } });
    try {
      const setup = await organization(teamsOff, false);
      const ui = dashboard(teamsOff, setup.owner.token);
      await ui.until((f) => f.includes(setup.invitee), 'the organization');
      expect(ui.frame()).toContain('unavailable: this daemon has teams turned off');
      expect(ui.frame()).toContain('Members (3)');
      // Moving through the empty teams section is harmless.
      await ui.press('\t', (f) => f.includes('▸ Teams'), 'the teams section');
      await ui.press(DOWN, (f) => f.includes('▸ Teams'), 'still there');
      cleanup();
    } finally {
      await teamsOff.stop();
    }
  });
});

describe('till org dashboard without a terminal', () => {
  const sandbox = useSandboxes(() => ({ TILL_URL: daemon().url }));
  const nodeArgs = ['--import', fileURLToPath(new URL('./fixtures/forbid-heavy-modules.mjs', import.meta.url))];

  it('exits 2 (usage) pointing at the --json commands, before loading Ink or asking the daemon anything', async () => {
    // Not signed in either: the terminal check comes first, so a script learns what to use instead.
    const result = await sandbox().run(['org', 'dashboard'], { nodeArgs });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('needs a terminal');
    for (const command of ['till org show --json', 'till org members list --json', 'till org invitations --json'])
      expect(result.stderr).toContain(command);
    // Piped input alone is enough to refuse, too.
    const piped = await sandbox().run(['org', 'dashboard', '--org', 'acme'], { nodeArgs, input: 'q' });
    expect(piped.exitCode, piped.stderr).toBe(2);
    expect(piped.stderr).toContain('needs a terminal');
  });

  it('documents itself in --help without loading Ink', async () => {
    const help = await sandbox().run(['org', 'dashboard', '--help'], { nodeArgs });
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toContain('--org <id|slug>');
  });
});
