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

async function signedIn(email = uniqueEmail('org')): Promise<{ cli: Sandbox; email: string }> {
  const cli = new Sandbox({ TILL_URL: daemon.url });
  sandboxes.push(cli);
  const signup = await cli.run(['signup', '--name', 'Ada', '--email', email, '--password-stdin'], {
    input: `${PASSWORD}\n`,
  });
  expect(signup.exitCode, signup.stderr).toBe(0);
  return { cli, email };
}

const slug = () => `acme-${Math.random().toString(36).slice(2, 8)}`;

describe('till org', () => {
  // About forty CLI processes in a row: on a loaded two-core machine this takes longer than the default 30 s.
  it('creates, lists, uses and shows an organization, invites a second user who accepts, and manages members', async () => {
    const { cli: owner, email: ownerEmail } = await signedIn();
    const s = slug();
    const created = await owner.run(['org', 'create', '--name', 'Acme', '--slug', s, '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ name: 'Acme', slug: s, created: true, id: expect.any(String) });
    const orgId = created.json.id;

    const list = await owner.run(['org', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json).toEqual([expect.objectContaining({ id: orgId, slug: s })]);
    expect((await owner.run(['org', 'list'])).stdout).toContain(s);

    const used = await owner.run(['org', 'use', s, '--json']);
    expect(used.exitCode, used.stderr).toBe(0);
    expect(used.json).toMatchObject({ id: orgId });

    const shown = await owner.run(['org', 'show', s, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.json.members).toEqual([
      expect.objectContaining({ role: 'owner', user: expect.objectContaining({ email: ownerEmail }) }),
    ]);

    const inviteeEmail = uniqueEmail('invitee');
    const invited = await owner.run(['org', 'invite', inviteeEmail, '--role', 'member', '--org', s, '--json']);
    expect(invited.exitCode, invited.stderr).toBe(0);
    expect(invited.json).toMatchObject({
      invited: true,
      invitation: { email: inviteeEmail, role: 'member', status: 'pending' },
    });
    const invitationId = invited.json.invitation.id;
    const pending = await owner.run(['org', 'invitations', '--json']);
    expect(pending.json).toEqual([expect.objectContaining({ id: invitationId })]);

    const { cli: invitee } = await signedIn(inviteeEmail);
    // Listing one's own invitations needs a verified address (Better Auth's rule); the id comes from the inviter.
    const mine = await invitee.run(['org', 'invitations', '--mine']);
    expect(mine.exitCode).toBe(1);
    expect(mine.stderr).toContain('EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION');
    const accepted = await invitee.run(['org', 'accept', invitationId, '--json']);
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(accepted.json).toMatchObject({
      invitation: { status: 'accepted' },
      member: { role: 'member', organizationId: orgId },
    });

    const members = await owner.run(['org', 'members', 'list', '--json']);
    expect(members.exitCode, members.stderr).toBe(0);
    expect(members.json.map((m: { user: { email: string } }) => m.user.email).sort()).toEqual(
      [ownerEmail, inviteeEmail].sort(),
    );

    const role = await owner.run(['org', 'members', 'role', inviteeEmail, 'admin', '--json']);
    expect(role.exitCode, role.stderr).toBe(0);
    expect(role.json).toMatchObject({ role: 'admin' });

    const removed = await owner.run(['org', 'members', 'remove', inviteeEmail, '--json']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.json).toMatchObject({ member: { user: { email: inviteeEmail } } });
    expect((await owner.run(['org', 'members', 'list', '--json'])).json).toHaveLength(1);

    const updated = await owner.run(['org', 'update', s, '--name', 'Acme Inc', '--json']);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({ name: 'Acme Inc', slug: s });

    // Without a terminal delete never prompts: no --yes is a usage error, and nothing is deleted.
    const refused = await owner.run(['org', 'delete', s]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    const deleted = await owner.run(['org', 'delete', s, '--yes', '--json']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(deleted.json).toEqual({ deleted: true, id: orgId, slug: s });
    expect((await owner.run(['org', 'list', '--json'])).json).toEqual([]);
  }, 120_000);

  it('re-runs provisioning with --if-not-exists without changing anything', async () => {
    const { cli } = await signedIn();
    const s = slug();
    const email = uniqueEmail('ci');
    const steps = [
      ['org', 'create', '--name', 'CI', '--slug', s, '--if-not-exists', '--json'],
      ['org', 'invite', email, '--role', 'member', '--org', s, '--if-not-exists', '--json'],
    ];
    const first = [];
    for (const step of steps) first.push(await cli.run(step));
    expect(first.map((r) => r.exitCode)).toEqual([0, 0]);
    expect(first[0]!.json.created).toBe(true);
    expect(first[1]!.json.invited).toBe(true);
    for (const step of steps) {
      const again = await cli.run(step);
      expect(again.exitCode, again.stderr).toBe(0);
    }
    const second = await cli.run(steps[0]!);
    expect(second.json).toMatchObject({ id: first[0]!.json.id, created: false });
    expect((await cli.run(['org', 'list', '--json'])).json).toHaveLength(1);
    expect((await cli.run(['org', 'invitations', '--org', s, '--json'])).json).toHaveLength(1);
    // Without the flag the same create is the server's error, exit 1 with its code.
    const duplicate = await cli.run(['org', 'create', '--name', 'CI', '--slug', s]);
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toMatch(/\([A-Z_]+\)/);
  });

  it('cancels and rejects invitations, and lets a member leave', async () => {
    const { cli: owner } = await signedIn();
    const s = slug();
    expect((await owner.run(['org', 'create', '--name', 'Exits', '--slug', s])).exitCode).toBe(0);
    const canceledEmail = uniqueEmail('canceled');
    const toCancel = await owner.run(['org', 'invite', canceledEmail, '--role', 'member']);
    expect(toCancel.exitCode, toCancel.stderr).toBe(0);
    const canceled = await owner.run(['org', 'cancel', toCancel.stdout.trim(), '--json']);
    expect(canceled.exitCode, canceled.stderr).toBe(0);
    expect(canceled.json).toMatchObject({ status: 'canceled' });

    const rejecterEmail = uniqueEmail('rejecter');
    const toReject = (await owner.run(['org', 'invite', rejecterEmail, '--role', 'member'])).stdout.trim();
    const { cli: rejecter } = await signedIn(rejecterEmail);
    const rejected = await rejecter.run(['org', 'reject', toReject, '--json']);
    expect(rejected.exitCode, rejected.stderr).toBe(0);
    expect(rejected.json).toMatchObject({ invitation: { status: 'rejected' }, member: null });

    const leaverEmail = uniqueEmail('leaver');
    const toAccept = (await owner.run(['org', 'invite', leaverEmail, '--role', 'member'])).stdout.trim();
    const { cli: leaver } = await signedIn(leaverEmail);
    expect((await leaver.run(['org', 'accept', toAccept])).exitCode).toBe(0);
    // The accepted organization is the leaver's only one, so a slug is all it takes.
    const shown = await leaver.run(['org', 'show', s, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const left = await leaver.run(['org', 'leave', s, '--json']);
    expect(left.exitCode, left.stderr).toBe(0);
    expect((await leaver.run(['org', 'list', '--json'])).json).toEqual([]);
    expect((await owner.run(['org', 'members', 'list', '--org', s, '--json'])).json).toHaveLength(1);
  });

  it('exits 4 when not signed in and 2 on usage errors; unknown slugs exit 1', async () => {
    const anonymous = new Sandbox({ TILL_URL: daemon.url });
    sandboxes.push(anonymous);
    expect((await anonymous.run(['org', 'list'])).exitCode).toBe(4);
    expect((await anonymous.run(['org', 'create', '--name', 'X', '--slug', 'x'])).exitCode).toBe(4);
    const { cli } = await signedIn();
    expect((await cli.run(['org', 'create', '--name', 'X'])).exitCode).toBe(2);
    expect((await cli.run(['org', 'use'])).exitCode).toBe(2);
    expect((await cli.run(['org', 'update', '--json'])).exitCode).toBe(2);
    const missing = await cli.run(['org', 'use', 'no-such-org']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/no organization "no-such-org"/);
  });
});
