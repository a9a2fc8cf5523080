import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false },
  });
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

async function signedIn(email = uniqueEmail('team')): Promise<Sandbox> {
  const cli = new Sandbox({ TILL_URL: daemon.url });
  sandboxes.push(cli);
  const signup = await cli.run(['signup', '--name', 'Lin', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  return cli;
}

describe('till team', () => {
  it('creates, lists, renames and removes teams, and adds and removes members by e-mail', async () => {
    const owner = await signedIn();
    const slug = `teams-${Math.random().toString(36).slice(2, 8)}`;
    expect((await owner.run(['org', 'create', '--name', 'Teams', '--slug', slug])).exitCode).toBe(0);

    // A new organization starts with a default team named after it.
    const initial = await owner.run(['team', 'list', '--json']);
    expect(initial.exitCode, initial.stderr).toBe(0);
    expect(initial.json).toEqual([expect.objectContaining({ name: 'Teams' })]);

    const created = await owner.run(['team', 'create', 'Support', '--org', slug, '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ name: 'Support', id: expect.any(String) });
    const teamId = created.json.id;

    const renamed = await owner.run(['team', 'rename', teamId, 'Helpdesk', '--json']);
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    expect(renamed.json).toMatchObject({ id: teamId, name: 'Helpdesk' });
    expect((await owner.run(['team', 'list'])).stdout).toContain('Helpdesk');

    const email = uniqueEmail('teammate');
    const invited = await owner.run(['org', 'invite', email, '--role', 'member', '--json']);
    expect(invited.exitCode, invited.stderr).toBe(0);
    const mate = await signedIn(email);
    expect((await mate.run(['org', 'accept', invited.json.invitation.id])).exitCode).toBe(0);

    const added = await owner.run(['team', 'add-member', teamId, email, '--json']);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.json).toMatchObject({ teamId, userId: expect.any(String) });
    const removed = await owner.run(['team', 'remove-member', teamId, email, '--json']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.json).toEqual({ removed: true, teamId, userId: added.json.userId });
    const stranger = await owner.run(['team', 'add-member', teamId, 'nobody@example.com']);
    expect(stranger.exitCode).toBe(1);
    expect(stranger.stderr).toMatch(/not a member/);

    const gone = await owner.run(['team', 'remove', teamId, '--json']);
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(gone.json).toEqual({ removed: true, id: teamId });
    expect((await owner.run(['team', 'list', '--json'])).json).toHaveLength(1);
    expect((await owner.run(['team', 'rename', teamId])).exitCode).toBe(2);
  });

  it('creates a team only once with --if-not-exists, and invites into teams named by name or id', async () => {
    const owner = await signedIn();
    const slug = `once-${Math.random().toString(36).slice(2, 8)}`;
    expect((await owner.run(['org', 'create', '--name', 'Once', '--slug', slug])).exitCode).toBe(0);

    const first = await owner.run(['team', 'create', 'Ops', '--org', slug, '--if-not-exists', '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ name: 'Ops', id: expect.any(String), created: true });
    const again = await owner.run(['team', 'create', 'Ops', '--org', slug, '--if-not-exists', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.json).toEqual({ ...first.json, created: false });
    // Without --json: the id on stdout either way, and what happened on stderr.
    const plain = await owner.run(['team', 'create', 'Ops', '--if-not-exists']);
    expect([plain.exitCode, plain.stdout.trim()]).toEqual([0, first.json.id]);
    expect(plain.stderr).toMatch(/already exists; nothing changed/);
    expect((await owner.run(['team', 'list', '--json'])).json.map((t: { name: string }) => t.name).sort()).toEqual([
      'Once',
      'Ops',
    ]);
    // Without the flag, create keeps its answer (the team alone) and makes a second team of the same name, as the server allows.
    const duplicate = await owner.run(['team', 'create', 'Ops', '--json']);
    expect(duplicate.exitCode, duplicate.stderr).toBe(0);
    expect(duplicate.json).not.toHaveProperty('created');
    expect(duplicate.json.id).not.toBe(first.json.id);

    // --team takes a name or an id, and repeats; a name two teams share must be given by id.
    const defaultTeam = (await owner.run(['team', 'list', '--json'])).json.find(
      (t: { name: string }) => t.name === 'Once',
    );
    const email = uniqueEmail('teamed');
    const invited = await owner.run([
      'org',
      'invite',
      email,
      '--role',
      'member',
      '--team',
      'Once',
      '--team',
      first.json.id,
      '--json',
    ]);
    expect(invited.exitCode, invited.stderr).toBe(0);
    expect(invited.json.invitation).toMatchObject({ email, teamId: `${defaultTeam.id},${first.json.id}` });
    const ambiguous = await owner.run(['org', 'invite', uniqueEmail('x'), '--role', 'member', '--team', 'Ops']);
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stderr).toMatch(/several teams are named "Ops"/);
    const unknown = await owner.run(['org', 'invite', uniqueEmail('x'), '--role', 'member', '--team', 'Nope']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no team "Nope"/);
  });

  it('says when the daemon has teams turned off, and exits 4 when not signed in', async () => {
    const anonymous = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(anonymous);
    expect((await anonymous.run(['team', 'list'])).exitCode).toBe(4);
    const off = await startTestDaemon();
    try {
      const cli = new Sandbox({ TILL_URL: off.url });
      sandboxes.push(cli);
      const signup = await cli.run(['signup', '--name', 'Off', '--email', uniqueEmail('off'), '--password-stdin'], {
        input: `${PASSWORD}\n`,
      });
      expect(signup.exitCode, signup.stderr).toBe(0);
      expect(
        (await cli.run(['org', 'create', '--name', 'Off', '--slug', `off-${Math.random().toString(36).slice(2, 8)}`]))
          .exitCode,
      ).toBe(0);
      const listed = await cli.run(['team', 'list']);
      expect(listed.exitCode).toBe(1);
      expect(listed.stderr).toContain('TILL_ORG_TEAMS=off');
    } finally {
      await off.stop();
    }
  });
});
