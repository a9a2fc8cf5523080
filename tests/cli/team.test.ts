import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, Sandbox } from './till.js';

let daemon: TestDaemon;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  daemon = await startTestDaemon({ organizations: { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false } });
});
afterAll(async () => {
  await daemon?.stop();
  for (const created of sandboxes) created.cleanup();
});

async function signedIn(email = uniqueEmail('team')): Promise<Sandbox> {
  const cli = new Sandbox({ TILL_URL: daemon.url });
  sandboxes.push(cli);
  const signup = await cli.run(['signup', '--name', 'Lin', '--email', email, '--password-stdin'], { input: `${PASSWORD}\n` });
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

  it('says when the daemon has teams turned off, and exits 4 when not signed in', async () => {
    const anonymous = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(anonymous);
    expect((await anonymous.run(['team', 'list'])).exitCode).toBe(4);
    const off = await startTestDaemon();
    try {
      const cli = new Sandbox({ TILL_URL: off.url });
      sandboxes.push(cli);
      const signup = await cli.run(['signup', '--name', 'Off', '--email', uniqueEmail('off'), '--password-stdin'], { input: `${PASSWORD}\n` });
      expect(signup.exitCode, signup.stderr).toBe(0);
      expect((await cli.run(['org', 'create', '--name', 'Off', '--slug', `off-${Math.random().toString(36).slice(2, 8)}`])).exitCode).toBe(0);
      const listed = await cli.run(['team', 'list']);
      expect(listed.exitCode).toBe(1);
      expect(listed.stderr).toContain('TILL_ORG_TEAMS=off');
    } finally {
      await off.stop();
    }
  });
});
