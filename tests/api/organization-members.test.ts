import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import type { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const daemon = useTestDaemon();
const user = (name?: string) => signedInUser(daemon(), name);
const activeOf = async (client: TestClient) =>
  (await client.get('/api/auth/get-session')).json.session.activeOrganizationId;

/** An organization with an owner, an admin and a plain member, all signed in. */
async function team() {
  const owner = await user('Owner');
  const org = await createOrganization(owner.client);
  // Members list in joining order; the test clock only moves when told.
  daemon().clock.advance(1000);
  const admin = await user('Admin');
  const adminId = await addMember(daemon(), org.id, admin.user.id, 'admin');
  daemon().clock.advance(1000);
  const member = await user('Member');
  const memberId = await addMember(daemon(), org.id, member.user.id, 'member');
  for (const who of [admin, member])
    await who.client.post('/api/auth/organization/set-active', { organizationId: org.id });
  return {
    org,
    owner: { ...owner, memberId: org.members[0]!.id },
    admin: { ...admin, memberId: adminId },
    member: { ...member, memberId },
  };
}

describe('GET list-members and get-active-member', () => {
  it('lists members with their users and total, paged', async () => {
    const { org, owner, member } = await team();
    const listed = await member.client.get('/api/auth/organization/list-members');
    expect(listed.status).toBe(200);
    expect(listed.json.total).toBe(3);
    expect(listed.json.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'admin', 'member']);
    expect(listed.json.members[0]).toEqual({
      id: owner.memberId,
      organizationId: org.id,
      userId: owner.user.id,
      role: 'owner',
      createdAt: expect.any(String),
      user: { id: owner.user.id, name: 'Owner', email: owner.email, image: null },
    });
    const page = await member.client.get('/api/auth/organization/list-members', { query: { limit: '1', offset: '1' } });
    expect(page.json.members.map((m: { role: string }) => m.role)).toEqual(['admin']);
  });

  it('refuses without an active organization and to non-members', async () => {
    const { org } = await team();
    const outsider = await user();
    const none = await outsider.client.get('/api/auth/organization/list-members');
    expect([none.status, none.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
    const refused = await outsider.client.get('/api/auth/organization/list-members', {
      query: { organizationId: org.id },
    });
    expect([refused.status, refused.json.code]).toEqual([403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION']);
    const noActive = await outsider.client.get('/api/auth/organization/get-active-member');
    expect([noActive.status, noActive.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
  });

  it('answers the caller’s membership in the active organization', async () => {
    const { admin } = await team();
    const active = await admin.client.get('/api/auth/organization/get-active-member');
    expect(active.status).toBe(200);
    expect(active.json).toMatchObject({
      id: admin.memberId,
      role: 'admin',
      user: { id: admin.user.id, name: 'Admin' },
    });
  });
});

describe('POST update-member-role', () => {
  it('lets an admin change a member, and only an owner grant or change the owner role', async () => {
    const { owner, admin, member } = await team();
    const changed = await admin.client.post('/api/auth/organization/update-member-role', {
      memberId: member.memberId,
      role: ['member', 'admin'],
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ id: member.memberId, role: 'member,admin', userId: member.user.id });

    const grant = await admin.client.post('/api/auth/organization/update-member-role', {
      memberId: member.memberId,
      role: 'owner',
    });
    expect([grant.status, grant.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER']);
    const demote = await admin.client.post('/api/auth/organization/update-member-role', {
      memberId: owner.memberId,
      role: 'member',
    });
    expect([demote.status, demote.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER']);
    const plain = await member.client.post('/api/auth/organization/update-member-role', {
      memberId: admin.memberId,
      role: 'member',
    });
    expect(plain.status).toBe(200); // member,admin now holds member:update

    const promoted = await owner.client.post('/api/auth/organization/update-member-role', {
      memberId: admin.memberId,
      role: 'owner',
    });
    expect(promoted.json.role).toBe('owner');
  });

  it('refuses to demote the last owner, unknown roles and members of other organizations', async () => {
    const { owner, member } = await team();
    const last = await owner.client.post('/api/auth/organization/update-member-role', {
      memberId: owner.memberId,
      role: 'admin',
    });
    expect([last.status, last.json.code]).toEqual([400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER']);
    const wizard = await owner.client.post('/api/auth/organization/update-member-role', {
      memberId: member.memberId,
      role: 'wizard',
    });
    expect(wizard.status).toBe(400);
    expect(wizard.json).toEqual({ code: 'ROLE_NOT_FOUND', message: 'ROLE_NOT_FOUND: wizard' });
    const missing = await owner.client.post('/api/auth/organization/update-member-role', {
      memberId: 'nope',
      role: 'admin',
    });
    expect([missing.status, missing.json.code]).toEqual([400, 'MEMBER_NOT_FOUND']);
    const other = await team();
    const foreign = await owner.client.post('/api/auth/organization/update-member-role', {
      memberId: other.member.memberId,
      role: 'admin',
    });
    expect([foreign.status, foreign.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER']);
  });
});

describe('POST remove-member and leave', () => {
  it('removes by id or e-mail, answers the member with its user, and clears the removed member’s active organization', async () => {
    const { org, admin, member } = await team();
    expect(await activeOf(member.client)).toBe(org.id);
    const removed = await admin.client.post('/api/auth/organization/remove-member', {
      memberIdOrEmail: member.email.toUpperCase(),
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json).toEqual({
      member: {
        id: member.memberId,
        organizationId: org.id,
        userId: member.user.id,
        role: 'member',
        createdAt: expect.any(String),
        user: { id: member.user.id, name: 'Member', email: member.email },
      },
    });
    expect(await activeOf(member.client)).toBeNull();
    const again = await admin.client.post('/api/auth/organization/remove-member', { memberIdOrEmail: member.memberId });
    expect([again.status, again.json.code]).toEqual([400, 'MEMBER_NOT_FOUND']);
  });

  it('refuses members without permission (401), non-owners removing owners and the last owner', async () => {
    const { owner, admin, member } = await team();
    const denied = await member.client.post('/api/auth/organization/remove-member', {
      memberIdOrEmail: admin.memberId,
    });
    expect([denied.status, denied.json.code]).toEqual([401, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER']);
    const ownerByAdmin = await admin.client.post('/api/auth/organization/remove-member', {
      memberIdOrEmail: owner.memberId,
    });
    expect([ownerByAdmin.status, ownerByAdmin.json.code]).toEqual([
      400,
      'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER',
    ]);
    const self = await owner.client.post('/api/auth/organization/remove-member', { memberIdOrEmail: owner.memberId });
    expect([self.status, self.json.code]).toEqual([400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER']);
    const noOrg = await (await user()).client.post('/api/auth/organization/remove-member', { memberIdOrEmail: 'x' });
    expect([noOrg.status, noOrg.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
  });

  it('lets a member leave (unsetting the active organization) but not the only owner', async () => {
    const { org, owner, member } = await team();
    const left = await member.client.post('/api/auth/organization/leave', { organizationId: org.id });
    expect(left.status, left.text).toBe(200);
    expect(left.json).toMatchObject({
      id: member.memberId,
      userId: member.user.id,
      user: { id: member.user.id, email: member.email },
    });
    expect(await activeOf(member.client)).toBeNull();
    const again = await member.client.post('/api/auth/organization/leave', { organizationId: org.id });
    expect([again.status, again.json.code]).toEqual([400, 'MEMBER_NOT_FOUND']);
    const only = await owner.client.post('/api/auth/organization/leave', { organizationId: org.id });
    expect([only.status, only.json.code]).toEqual([400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER']);
  });
});

describe('owner changes at the same time', () => {
  it('two owners removing each other at once leave exactly one owner', async () => {
    const { org, owner } = await team();
    const second = await user();
    const secondId = await addMember(daemon(), org.id, second.user.id, 'owner');
    await second.client.post('/api/auth/organization/set-active', { organizationId: org.id });
    const results = await Promise.all([
      owner.client.post('/api/auth/organization/remove-member', { memberIdOrEmail: secondId }),
      second.client.post('/api/auth/organization/remove-member', { memberIdOrEmail: owner.memberId }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const listed = await owner.client.get('/api/auth/organization/list-members', { query: { organizationId: org.id } });
    const survivor =
      listed.status === 200
        ? listed
        : await second.client.get('/api/auth/organization/list-members', { query: { organizationId: org.id } });
    expect(survivor.json.members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
  });

  it('two owners demoting and leaving at once leave exactly one owner', async () => {
    const { org, owner } = await team();
    const second = await user();
    const secondId = await addMember(daemon(), org.id, second.user.id, 'owner');
    const results = await Promise.all([
      owner.client.post('/api/auth/organization/update-member-role', { memberId: owner.memberId, role: 'admin' }),
      second.client.post('/api/auth/organization/leave', { organizationId: org.id }),
      owner.client.post('/api/auth/organization/update-member-role', {
        memberId: secondId,
        role: 'member',
        organizationId: org.id,
      }),
    ]);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const roles = await daemon().core.db('members').where({ organization_id: org.id }).select('role');
    expect(roles.filter((row: { role: string }) => row.role.split(',').includes('owner'))).toHaveLength(1);
  });
});
