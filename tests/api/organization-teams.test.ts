import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import type { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const TEAMS = { allowCreate: true, limit: null, teams: true, allowRemovingAllTeams: false };

describe('teams turned off (the default)', () => {
  const daemon = useTestDaemon();
  it('answers team routes like unknown paths and adds no team', async () => {
    const { client } = await signedInUser(daemon());
    await createOrganization(client);
    const response = await client.post('/api/auth/organization/create-team', { name: 'T' });
    expect([response.status, response.text]).toEqual([404, '']);
    expect((await client.get('/api/auth/organization/list-teams')).status).toBe(404);
    const session = (await client.get('/api/auth/get-session')).json.session;
    expect('activeTeamId' in session).toBe(false);
    expect('teams' in (await client.get('/api/auth/organization/get-full-organization')).json).toBe(false);
  });
});

describe('teams turned on', () => {
  const daemon = useTestDaemon({ organizations: TEAMS });
  const user = (name?: string) => signedInUser(daemon(), name);
  const sessionOf = async (client: TestClient) => (await client.get('/api/auth/get-session')).json.session;

  async function setup() {
    const owner = await user('Owner');
    const org = await createOrganization(owner.client, { name: 'Teamed' });
    const member = await user('Member');
    await addMember(daemon(), org.id, member.user.id, 'member');
    await member.client.post('/api/auth/organization/set-active', { organizationId: org.id });
    const teams = (await owner.client.get('/api/auth/organization/list-teams')).json;
    return { owner, org, member, defaultTeam: teams[0] };
  }

  it('creates a default team named after the organization with the creator in it, and makes it active', async () => {
    const { owner, org, defaultTeam } = await setup();
    expect(defaultTeam).toEqual({
      id: expect.any(String),
      name: 'Teamed',
      organizationId: org.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const session = await sessionOf(owner.client);
    expect(session).toMatchObject({ activeOrganizationId: org.id, activeTeamId: defaultTeam.id });
    const members = await owner.client.get('/api/auth/organization/list-team-members');
    expect(members.json).toEqual([
      { id: expect.any(String), teamId: defaultTeam.id, userId: owner.user.id, createdAt: expect.any(String) },
    ]);
    expect((await owner.client.get('/api/auth/organization/get-full-organization')).json.teams).toEqual([
      { ...defaultTeam, memberCount: 1 },
    ]);
    // With teams on the session always carries activeTeamId, null when unset, as Better Auth's does.
    const memberSession = await sessionOf((await setup()).member.client);
    expect(memberSession).toHaveProperty('activeTeamId', null);
  });

  it('creates and renames teams for those allowed', async () => {
    const { owner, member } = await setup();
    const created = await owner.client.post('/api/auth/organization/create-team', { name: 'Design' });
    expect(created.status, created.text).toBe(200);
    expect(created.json.name).toBe('Design');
    const denied = await member.client.post('/api/auth/organization/create-team', { name: 'Mine' });
    expect([denied.status, denied.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION',
    ]);
    const outsider = await user();
    const notMember = await outsider.client.post('/api/auth/organization/create-team', {
      name: 'X',
      organizationId: created.json.organizationId,
    });
    expect([notMember.status, notMember.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
    ]);
    const noOrg = await outsider.client.post('/api/auth/organization/create-team', { name: 'X' });
    expect([noOrg.status, noOrg.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);

    daemon().clock.advance(1000);
    const renamed = await owner.client.post('/api/auth/organization/update-team', {
      teamId: created.json.id,
      data: { name: 'Product' },
    });
    expect(renamed.json).toMatchObject({
      id: created.json.id,
      name: 'Product',
      updatedAt: daemon().clock.now().toISOString(),
    });
    const refused = await member.client.post('/api/auth/organization/update-team', {
      teamId: created.json.id,
      data: { name: 'No' },
    });
    expect([refused.status, refused.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM']);
    const missing = await owner.client.post('/api/auth/organization/update-team', {
      teamId: 'nope',
      data: { name: 'No' },
    });
    expect([missing.status, missing.json.code]).toEqual([400, 'TEAM_NOT_FOUND']);
  });

  it('removes teams but not the last one nor the caller’s active one', async () => {
    const { owner, member, defaultTeam } = await setup();
    const activeRefused = await owner.client.post('/api/auth/organization/remove-team', { teamId: defaultTeam.id });
    expect([activeRefused.status, activeRefused.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM']);
    await owner.client.post('/api/auth/organization/set-active-team', { teamId: null });
    const last = await owner.client.post('/api/auth/organization/remove-team', { teamId: defaultTeam.id });
    expect([last.status, last.json.code]).toEqual([400, 'UNABLE_TO_REMOVE_LAST_TEAM']);
    const other = (await owner.client.post('/api/auth/organization/create-team', { name: 'Other' })).json;
    const denied = await member.client.post('/api/auth/organization/remove-team', { teamId: other.id });
    expect([denied.status, denied.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION',
    ]);
    const removed = await owner.client.post('/api/auth/organization/remove-team', { teamId: other.id });
    expect(removed.json).toEqual({ message: 'Team removed successfully.' });
    const again = await owner.client.post('/api/auth/organization/remove-team', { teamId: other.id });
    expect([again.status, again.json.code]).toEqual([400, 'TEAM_NOT_FOUND']);
  });

  it('adds and removes team members, sets the active team and lists a user’s teams', async () => {
    const { owner, org, member, defaultTeam } = await setup();
    const notInTeam = await member.client.post('/api/auth/organization/set-active-team', { teamId: defaultTeam.id });
    expect([notInTeam.status, notInTeam.json.code]).toEqual([403, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM']);
    const denied = await member.client.post('/api/auth/organization/add-team-member', {
      teamId: defaultTeam.id,
      userId: member.user.id,
    });
    expect([denied.status, denied.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER']);
    const outsider = await user();
    const notOrgMember = await owner.client.post('/api/auth/organization/add-team-member', {
      teamId: defaultTeam.id,
      userId: outsider.user.id,
    });
    expect([notOrgMember.status, notOrgMember.json.code]).toEqual([400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);

    const added = await owner.client.post('/api/auth/organization/add-team-member', {
      teamId: defaultTeam.id,
      userId: member.user.id,
    });
    expect(added.json).toEqual({
      id: expect.any(String),
      teamId: defaultTeam.id,
      userId: member.user.id,
      createdAt: expect.any(String),
    });
    const set = await member.client.post('/api/auth/organization/set-active-team', { teamId: defaultTeam.id });
    expect(set.status).toBe(200);
    expect(set.json.id).toBe(defaultTeam.id);
    expect(set.setCookies.some((cookie) => cookie.startsWith('better-auth.session_token='))).toBe(true);
    expect((await sessionOf(member.client)).activeTeamId).toBe(defaultTeam.id);
    expect((await member.client.get('/api/auth/organization/list-user-teams')).json).toEqual([defaultTeam]);
    expect((await member.client.get('/api/auth/organization/list-team-members')).json).toHaveLength(2);

    const memberRemoves = await member.client.post('/api/auth/organization/remove-team-member', {
      teamId: defaultTeam.id,
      userId: owner.user.id,
    });
    expect([memberRemoves.status, memberRemoves.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER',
    ]);
    const removed = await owner.client.post('/api/auth/organization/remove-team-member', {
      teamId: defaultTeam.id,
      userId: member.user.id,
      organizationId: org.id,
    });
    expect(removed.json).toEqual({ message: 'Team member removed successfully.' });
    const twice = await owner.client.post('/api/auth/organization/remove-team-member', {
      teamId: defaultTeam.id,
      userId: member.user.id,
    });
    expect([twice.status, twice.json.code]).toEqual([400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM']);
    const notMember = await member.client.get('/api/auth/organization/list-team-members', {
      query: { teamId: defaultTeam.id },
    });
    expect([notMember.status, notMember.json.code]).toEqual([400, 'USER_IS_NOT_A_MEMBER_OF_THE_TEAM']);
  });

  it('answers the edge cases of set-active-team, list-teams and list-team-members', async () => {
    const { org } = await setup();
    const outsider = await user();
    const noTeam = await outsider.client.get('/api/auth/organization/list-team-members');
    expect([noTeam.status, noTeam.json.code]).toEqual([400, 'YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM']);
    const noOrg = await outsider.client.post('/api/auth/organization/set-active-team', { teamId: 'x' });
    expect([noOrg.status, noOrg.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
    const listRefused = await outsider.client.get('/api/auth/organization/list-teams', {
      query: { organizationId: org.id },
    });
    expect([listRefused.status, listRefused.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION',
    ]);
    const own = await createOrganization(outsider.client);
    const unknownTeam = await outsider.client.post('/api/auth/organization/set-active-team', { teamId: 'nope' });
    expect([unknownTeam.status, unknownTeam.json.code]).toEqual([400, 'TEAM_NOT_FOUND']);
    const unset = await outsider.client.post('/api/auth/organization/set-active-team', { teamId: null });
    expect(unset.text).toBe('null');
    expect(await sessionOf(outsider.client)).toMatchObject({ activeOrganizationId: own.id });
    expect((await sessionOf(outsider.client)).activeTeamId).toBeNull();
  });

  it('takes a removed member out of the organization’s teams', async () => {
    const { owner, member, defaultTeam } = await setup();
    await owner.client.post('/api/auth/organization/add-team-member', {
      teamId: defaultTeam.id,
      userId: member.user.id,
    });
    await owner.client.post('/api/auth/organization/remove-member', { memberIdOrEmail: member.email });
    expect(
      (await owner.client.get('/api/auth/organization/list-team-members')).json.map(
        (m: { userId: string }) => m.userId,
      ),
    ).toEqual([owner.user.id]);
  });
});

describe('teams with allowRemovingAllTeams', () => {
  const daemon = useTestDaemon({ organizations: { ...TEAMS, allowRemovingAllTeams: true } });
  it('removes the last team', async () => {
    const { client } = await signedInUser(daemon());
    await createOrganization(client);
    const [team] = (await client.get('/api/auth/organization/list-teams')).json;
    await client.post('/api/auth/organization/set-active-team', { teamId: null });
    expect((await client.post('/api/auth/organization/remove-team', { teamId: team.id })).status).toBe(200);
    expect((await client.get('/api/auth/organization/list-teams')).json).toEqual([]);
  });
});
