import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { PASSWORD, TILL_BIN, useSandboxes, type Sandbox } from './till.js';

/** The example a CI job copies; run as written, with bash, against a real daemon. */
const SCRIPT = fileURLToPath(new URL('../../examples/provision-org.sh', import.meta.url));

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false },
  });
});
afterAll(async () => {
  await daemon?.stop();
});
const sandbox = useSandboxes(() => ({ TILL_URL: daemon.url }));

async function signedIn(email: string): Promise<Sandbox> {
  const cli = sandbox();
  const signup = await cli.run(['signup', '--name', 'Provisioner', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  return cli;
}

/** A `till` executable in the sandbox (what `npm link` gives a CI job): the built CLI under this node. */
function installTill(cli: Sandbox): { bin: string; till: string } {
  const bin = join(cli.root, 'bin');
  mkdirSync(bin, { recursive: true });
  const till = join(bin, 'till');
  writeFileSync(till, `#!/bin/sh\nexec '${process.execPath}' '${TILL_BIN}' "$@"\n`);
  chmodSync(till, 0o755);
  return { bin, till };
}

async function provision(cli: Sandbox, env: Record<string, string | undefined>) {
  const result = await execa('bash', [SCRIPT], {
    reject: false,
    extendEnv: false,
    env: cli.environment(env),
    cwd: cli.root,
    stdin: 'ignore',
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** What the organization looks like, read back through the CLI's --json. */
async function state(cli: Sandbox) {
  const read = async (args: string[]) => {
    const result = await cli.run([...args, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    return result.json;
  };
  const orgs = await read(['org', 'list']);
  const teams = await read(['team', 'list', '--org', 'acme']);
  const invitations = await read(['org', 'invitations', '--org', 'acme']);
  const members = await read(['org', 'members', 'list', '--org', 'acme']);
  return {
    orgs: orgs.map((o: { id: string; slug: string }) => [o.id, o.slug]),
    teams: teams.map((t: { id: string; name: string }) => [t.id, t.name]),
    invitations: invitations.map((i: { id: string; email: string; role: string }) => [i.id, i.email, i.role]),
    invitationStatus: Object.fromEntries(
      invitations.map((i: { email: string; status: string }) => [i.email, i.status]),
    ),
    members: members.map((m: { id: string; role: string; user: { email: string } }) => [m.id, m.user.email, m.role]),
    raw: { teams, invitations },
  };
}

describe('examples/provision-org.sh', () => {
  // Two runs of the script, each dozens of CLI processes: longer than the default 30 s on a loaded machine.
  it('provisions an organization, its teams and invitations, and a second run changes nothing', async () => {
    const ownerEmail = uniqueEmail('owner');
    const owner = await signedIn(ownerEmail);
    const { bin, till } = installTill(owner);
    // The owner's own active organization, which the script must leave active (issue 21 #3).
    const home = await owner.run(['org', 'create', '--name', 'Home', '--slug', 'home', '--json']);
    expect(home.exitCode, home.stderr).toBe(0);

    // First run: TILL names the binary.
    const first = await provision(owner, { TILL: till });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toEqual([
      'changed    organization acme',
      'changed    team Engineering',
      'changed    team Support',
      'changed    invitation ada@acme.example (admin)',
      'changed    invitation grace@acme.example (member)',
      'changed    invitation linus@acme.example (member)',
      'provision-org: 6 changed, 0 unchanged',
    ]);
    const before = await state(owner);
    expect(before.orgs.map(([, slug]: string[]) => slug).sort()).toEqual(['acme', 'home']);
    const acmeId = before.orgs.find(([, slug]: string[]) => slug === 'acme')[0];
    // The default team named after the organization, and the script's two (the test clock stands still, so rows
    // made in one run share a timestamp and come back in id order: names are compared sorted).
    expect(before.teams.map(([, name]: string[]) => name).sort()).toEqual(['Acme', 'Engineering', 'Support']);
    const teamId = Object.fromEntries(before.teams.map(([id, name]: string[]) => [name, id]));
    const invited = before.raw.invitations.map(
      (i: { email: string; role: string; teamId: string | null; status: string }) => [
        i.email,
        i.role,
        i.teamId,
        i.status,
      ],
    );
    expect(invited.sort()).toEqual([
      ['ada@acme.example', 'admin', teamId.Engineering, 'pending'],
      ['grace@acme.example', 'member', `${teamId.Engineering},${teamId.Support}`, 'pending'],
      ['linus@acme.example', 'member', teamId.Support, 'pending'],
    ]);
    // The session's active organization is still the owner's own: the script named acme with --org throughout.
    expect((await owner.run(['org', 'show', '--json'])).json).toMatchObject({ id: home.json.id, slug: 'home' });
    expect((await owner.run(['org', 'show', 'acme', '--json'])).json).toMatchObject({ id: acmeId });

    // Between runs, Ada accepts: she is now a member, and the script must not invite her again.
    const ada = await signedIn('ada@acme.example');
    const adaInvitation = before.invitations.find(([, email]: string[]) => email === 'ada@acme.example')[0];
    const accepted = await ada.run(['org', 'accept', adaInvitation, '--json']);
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    const afterAccept = await state(owner);

    // Second run: no TILL, so `till` is found on the PATH.
    const second = await provision(owner, { PATH: `${bin}:${process.env.PATH}` });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout.trim().split('\n')).toEqual([
      'unchanged  organization acme',
      'unchanged  team Engineering',
      'unchanged  team Support',
      'unchanged  invitation ada@acme.example (admin)',
      'unchanged  invitation grace@acme.example (member)',
      'unchanged  invitation linus@acme.example (member)',
      'provision-org: 0 changed, 6 unchanged',
    ]);
    const after = await state(owner);
    // Same organization, same teams, same invitations (ids and count), same members.
    expect(after.orgs).toEqual(before.orgs);
    expect(after.teams).toEqual(before.teams);
    expect(after.invitations).toEqual(before.invitations);
    expect(after.members).toEqual(afterAccept.members);
    expect(after.invitationStatus).toEqual({
      'ada@acme.example': 'accepted',
      'grace@acme.example': 'pending',
      'linus@acme.example': 'pending',
    });
    expect(after.members.map(([, email, role]: string[]) => [email, role])).toEqual(
      expect.arrayContaining([
        [ownerEmail, 'owner'],
        ['ada@acme.example', 'admin'],
      ]),
    );
    expect(after.members).toHaveLength(2);
    // Ada joined the team her invitation named.
    const full = (await owner.run(['org', 'show', 'acme', '--json'])).json;
    expect(
      Object.fromEntries(full.teams.map((t: { name: string; memberCount: number }) => [t.name, t.memberCount])),
    ).toEqual({ Acme: 1, Engineering: 1, Support: 0 });
  }, 300_000);

  it('stops with the CLI’s exit code when a step fails', async () => {
    const anonymous = sandbox();
    const { till } = installTill(anonymous);
    const result = await provision(anonymous, { TILL: till });
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/not signed in/i);
  });
});
