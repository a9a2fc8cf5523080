import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import type { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const TEAMS = { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false };

describe('invitations into teams', () => {
  const daemon = useTestDaemon({ organizations: TEAMS });
  const user = (name?: string) => signedInUser(daemon(), name);
  const invite = (client: TestClient, body: Record<string, unknown>) =>
    client.post('/api/auth/organization/invite-member', body);
  const sessionOf = async (client: TestClient) => (await client.get('/api/auth/get-session')).json.session;

  async function setup() {
    const owner = await user('Owner');
    const org = await createOrganization(owner.client, { name: 'Teamed' });
    const [defaultTeam] = (await owner.client.get('/api/auth/organization/list-teams')).json;
    const second = (await owner.client.post('/api/auth/organization/create-team', { name: 'Second' })).json;
    return { owner, org, defaultTeam, second };
  }

  it('stores one team, joins it on accept and makes it the active team', async () => {
    const { owner, org, second } = await setup();
    const invitee = await user();
    const sent = await invite(owner.client, { email: invitee.email, role: 'member', teamId: second.id });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json.teamId).toBe(second.id);
    const accepted = await invitee.client.post('/api/auth/organization/accept-invitation', {
      invitationId: sent.json.id,
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(await sessionOf(invitee.client)).toMatchObject({ activeOrganizationId: org.id, activeTeamId: second.id });
    const teams = (await invitee.client.get('/api/auth/organization/list-user-teams')).json;
    expect(teams.map((team: { id: string }) => team.id)).toEqual([second.id]);
  });

  it('stores several teams comma-separated and joins them all without an active team', async () => {
    const { owner, org, defaultTeam, second } = await setup();
    const invitee = await user();
    const sent = await invite(owner.client, {
      email: invitee.email,
      role: 'member',
      teamId: [defaultTeam.id, second.id],
    });
    expect(sent.json.teamId).toBe(`${defaultTeam.id},${second.id}`);
    await invitee.client.post('/api/auth/organization/accept-invitation', { invitationId: sent.json.id });
    const session = await sessionOf(invitee.client);
    expect(session).toMatchObject({ activeOrganizationId: org.id, activeTeamId: null });
    const full = (await owner.client.get('/api/auth/organization/get-full-organization')).json;
    // Both teams share the test clock's creation time, so their order is not asserted.
    const counts = Object.fromEntries(
      full.teams.map((team: { id: string; memberCount: number }) => [team.id, team.memberCount]),
    );
    expect(counts).toEqual({ [defaultTeam.id]: 2, [second.id]: 1 });
  });

  it('refuses unknown teams, other organizations’ teams and ids with a comma', async () => {
    const { owner } = await setup();
    const other = await setup();
    const invitee = await user();
    const unknown = await invite(owner.client, { email: invitee.email, role: 'member', teamId: 'nope' });
    expect([unknown.status, unknown.json.code]).toEqual([400, 'TEAM_NOT_FOUND']);
    const foreign = await invite(owner.client, { email: invitee.email, role: 'member', teamId: other.second.id });
    expect([foreign.status, foreign.json.code]).toEqual([400, 'TEAM_NOT_FOUND']);
    const comma = await invite(owner.client, { email: invitee.email, role: 'member', teamId: 'a,b' });
    expect([comma.status, comma.json.code]).toEqual([400, 'INVALID_TEAM_ID']);
  });
});

describe('maximumMembersPerTeam', () => {
  const daemon = useTestDaemon({ organizations: { ...TEAMS, maximumMembersPerTeam: 2 } });

  it('refuses accepting into, and adding to, a full team with 403 TEAM_MEMBER_LIMIT_REACHED', async () => {
    const owner = await signedInUser(daemon());
    const org = await createOrganization(owner.client);
    const [team] = (await owner.client.get('/api/auth/organization/list-teams')).json;
    const second = await signedInUser(daemon());
    const third = await signedInUser(daemon());
    const invitations = [];
    for (const invitee of [second, third]) {
      invitations.push(
        (
          await owner.client.post('/api/auth/organization/invite-member', {
            email: invitee.email,
            role: 'member',
            teamId: team.id,
          })
        ).json,
      );
    }
    // The owner is already in the default team, so one more fills it.
    expect(
      (await second.client.post('/api/auth/organization/accept-invitation', { invitationId: invitations[0].id }))
        .status,
    ).toBe(200);
    const full = await third.client.post('/api/auth/organization/accept-invitation', {
      invitationId: invitations[1].id,
    });
    expect([full.status, full.json.code]).toEqual([403, 'TEAM_MEMBER_LIMIT_REACHED']);
    // The refused accept changed nothing: the invitee is not a member and the invitation is still pending.
    expect(
      (await third.client.get('/api/auth/organization/get-invitation', { query: { id: invitations[1].id } })).json
        .status,
    ).toBe('pending');
    const other = await signedInUser(daemon());
    await addMember(daemon(), org.id, other.user.id, 'member');
    const added = await owner.client.post('/api/auth/organization/add-team-member', {
      teamId: team.id,
      userId: other.user.id,
    });
    expect([added.status, added.json.code]).toEqual([403, 'TEAM_MEMBER_LIMIT_REACHED']);
  });

  it('admits exactly one of 10 parallel add-team-member calls into a team with one free place', async () => {
    const owner = await signedInUser(daemon());
    const org = await createOrganization(owner.client);
    // The owner is in the default team; with a limit of 2 it has one place left.
    const [team] = (await owner.client.get('/api/auth/organization/list-teams')).json;
    const candidates = await Promise.all(Array.from({ length: 10 }, () => signedInUser(daemon())));
    for (const candidate of candidates) await addMember(daemon(), org.id, candidate.user.id, 'member');
    const results = await Promise.all(
      candidates.map((candidate) =>
        owner.client.post('/api/auth/organization/add-team-member', { teamId: team.id, userId: candidate.user.id }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.json.code])).toEqual(
      Array(9).fill([403, 'TEAM_MEMBER_LIMIT_REACHED']),
    );
    const full = (await owner.client.get('/api/auth/organization/get-full-organization')).json;
    expect(full.teams).toEqual([expect.objectContaining({ id: team.id, memberCount: 2 })]);
  });
});
