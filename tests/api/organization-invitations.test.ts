import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/kernel/clock.js';
import { newAuthId } from '../../src/core/kernel/ids.js';
import { invitationsRepository } from '../../src/core/organizations/invitations-repository.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const daemon = useTestDaemon();
const user = (name?: string) => signedInUser(daemon(), name);
const activeOf = async (client: TestClient) =>
  (await client.get('/api/auth/get-session')).json.session.activeOrganizationId;
const invite = (client: TestClient, body: Record<string, unknown>) =>
  client.post('/api/auth/organization/invite-member', body);
const verify = (userId: string) => daemon().core.db('users').where({ id: userId }).update({ email_verified: true });

describe('POST invite-member', () => {
  it('creates a pending 48-hour invitation with a lower-cased address and mails it in the same change', async () => {
    const owner = await user('Olga');
    const org = await createOrganization(owner.client, { name: 'Acme' });
    const invitee = await user();
    const response = await invite(owner.client, { email: invitee.email.toUpperCase(), role: 'admin' });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      organizationId: org.id,
      email: invitee.email,
      role: 'admin',
      teamId: null,
      status: 'pending',
      expiresAt: new Date(daemon().clock.now().getTime() + 48 * HOUR).toISOString(),
      createdAt: daemon().clock.now().toISOString(),
      inviterId: owner.user.id,
    });
    const [summary] = await daemon().core.mail.list({ to: invitee.email, kind: 'organization-invitation' });
    const mail = await daemon().core.mail.get(summary!.id);
    expect(mail!.subject).toBe('Olga invited you to Acme');
    expect(mail!.text).toContain(`${daemon().url}/api/auth/organization/get-invitation?id=${response.json.id}`);
  });

  it('refuses a second invitation unless resent, which extends it', async () => {
    const owner = await user();
    await createOrganization(owner.client);
    const email = `Someone.${Date.now()}@Example.com`;
    const first = await invite(owner.client, { email, role: 'member' });
    const again = await invite(owner.client, { email, role: 'member' });
    expect([again.status, again.json.code]).toEqual([400, 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION']);
    daemon().clock.advance(HOUR);
    const resent = await invite(owner.client, { email, role: 'member', resend: true });
    expect(resent.json.id).toBe(first.json.id);
    expect(resent.json.expiresAt).toBe(new Date(daemon().clock.now().getTime() + 48 * HOUR).toISOString());
  });

  it('checks membership, roles, permission, existing members and the address', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const admin = await user();
    await addMember(daemon(), org.id, admin.user.id, 'admin');
    const member = await user();
    await addMember(daemon(), org.id, member.user.id, 'member');
    const outsider = await user();

    const notMember = await invite(outsider.client, { email: 'a@example.com', role: 'member', organizationId: org.id });
    expect([notMember.status, notMember.json.code]).toEqual([400, 'MEMBER_NOT_FOUND']);
    const wizard = await invite(owner.client, { email: 'a@example.com', role: ['member', 'wizard'] });
    expect(wizard.status).toBe(400);
    expect(wizard.json).toEqual({ message: 'ROLE_NOT_FOUND: wizard' });
    const denied = await invite(member.client, { email: 'a@example.com', role: 'member', organizationId: org.id });
    expect([denied.status, denied.json.code]).toEqual([
      403,
      'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
    ]);
    const ownerRole = await invite(admin.client, { email: 'a@example.com', role: 'owner', organizationId: org.id });
    expect([ownerRole.status, ownerRole.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE']);
    const already = await invite(owner.client, { email: member.email, role: 'member' });
    expect([already.status, already.json.code]).toEqual([400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION']);
    const bad = await invite(owner.client, { email: 'not-an-address', role: 'member' });
    expect([bad.status, bad.json.code]).toEqual([400, 'INVALID_EMAIL']);
    const noOrg = await invite(outsider.client, { email: 'a@example.com', role: 'member' });
    expect([noOrg.status, noOrg.json.code]).toEqual([400, 'ORGANIZATION_NOT_FOUND']);
  });

  it('stops at 100 pending invitations', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const now = daemon().clock.now();
    for (let i = 0; i < 100; i += 1) {
      await invitationsRepository(daemon().core.db).insert({
        id: newAuthId(),
        organizationId: org.id,
        email: `bulk${i}@example.com`,
        role: 'member',
        teamId: null,
        status: 'pending',
        inviterId: owner.user.id,
        expiresAt: new Date(now.getTime() + HOUR),
        createdAt: now,
      });
    }
    const refused = await invite(owner.client, { email: 'one-more@example.com', role: 'member' });
    expect([refused.status, refused.json.code]).toEqual([403, 'INVITATION_LIMIT_REACHED']);
  });
});

describe('accepting, rejecting and cancelling', () => {
  it('accepts once: creates the member with the invited role and makes the organization active', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const invitee = await user();
    const invitation = (await invite(owner.client, { email: invitee.email.toUpperCase(), role: 'admin' })).json;
    const stranger = await user();
    const notMine = await stranger.client.post('/api/auth/organization/accept-invitation', {
      invitationId: invitation.id,
    });
    expect([notMine.status, notMine.json.code]).toEqual([403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION']);

    const accepted = await invitee.client.post('/api/auth/organization/accept-invitation', {
      invitationId: invitation.id,
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.invitation).toEqual({ ...invitation, status: 'accepted' });
    expect(accepted.json.member).toEqual({
      id: expect.any(String),
      organizationId: org.id,
      userId: invitee.user.id,
      role: 'admin',
      createdAt: expect.any(String),
    });
    expect(await activeOf(invitee.client)).toBe(org.id);
    const twice = await invitee.client.post('/api/auth/organization/accept-invitation', {
      invitationId: invitation.id,
    });
    expect([twice.status, twice.json.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
  });

  it('refuses expired invitations', async () => {
    const owner = await user();
    await createOrganization(owner.client);
    const invitee = await user();
    const invitation = (await invite(owner.client, { email: invitee.email, role: 'member' })).json;
    daemon().clock.advance(48 * HOUR);
    const expired = await invitee.client.post('/api/auth/organization/accept-invitation', {
      invitationId: invitation.id,
    });
    expect([expired.status, expired.json.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
  });

  it('rejects with Better Auth’s answer and cancels for those allowed', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const invitee = await user();
    const first = (await invite(owner.client, { email: invitee.email, role: 'member' })).json;
    const rejected = await invitee.client.post('/api/auth/organization/reject-invitation', { invitationId: first.id });
    expect(rejected.status).toBe(200);
    expect(rejected.json).toEqual({ invitation: { ...first, status: 'rejected' }, member: null });
    const again = await invitee.client.post('/api/auth/organization/reject-invitation', { invitationId: first.id });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ message: 'Invitation not found!', code: 'INVITATION_NOT_FOUND' });

    const second = (await invite(owner.client, { email: invitee.email, role: 'member' })).json;
    const member = await user();
    await addMember(daemon(), org.id, member.user.id, 'member');
    const denied = await member.client.post('/api/auth/organization/cancel-invitation', { invitationId: second.id });
    expect([denied.status, denied.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION']);
    const outsider = await user();
    const notMember = await outsider.client.post('/api/auth/organization/cancel-invitation', {
      invitationId: second.id,
    });
    expect([notMember.status, notMember.json.code]).toEqual([400, 'MEMBER_NOT_FOUND']);
    const canceled = await owner.client.post('/api/auth/organization/cancel-invitation', { invitationId: second.id });
    expect(canceled.json).toEqual({ ...second, status: 'canceled' });
    const gone = await invitee.client.post('/api/auth/organization/accept-invitation', { invitationId: second.id });
    expect([gone.status, gone.json.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
    const unknown = await owner.client.post('/api/auth/organization/cancel-invitation', { invitationId: 'nope' });
    expect([unknown.status, unknown.json.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
  });
});

describe('reading invitations', () => {
  it('get-invitation shows the recipient the organization and inviter', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client, { name: 'Readers' });
    const invitee = await user();
    const invitation = (await invite(owner.client, { email: invitee.email, role: 'member' })).json;
    const got = await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: invitation.id } });
    expect(got.status).toBe(200);
    expect(got.json).toEqual({
      ...invitation,
      organizationName: 'Readers',
      organizationSlug: org.slug,
      inviterEmail: owner.email,
    });
    const anonymous = new TestClient(daemon().url, { origin: daemon().url });
    const noSession = await anonymous.get('/api/auth/organization/get-invitation', { query: { id: invitation.id } });
    expect(noSession.status).toBe(401);
    expect(noSession.json).toEqual({ message: 'Not authenticated' });
    const other = await owner.client.get('/api/auth/organization/get-invitation', { query: { id: invitation.id } });
    expect([other.status, other.json.code]).toEqual([403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION']);
    const missing = await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: 'nope' } });
    expect([missing.status, missing.json.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
  });

  it('list-invitations and get-full-organization show invitations to inviters, owner invitations only to owners', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const admin = await user();
    await addMember(daemon(), org.id, admin.user.id, 'admin');
    const member = await user();
    await addMember(daemon(), org.id, member.user.id, 'member');
    await invite(owner.client, { email: 'future-owner@example.com', role: 'owner' });
    // Invitations list oldest first; the test clock only moves when told.
    daemon().clock.advance(1000);
    await invite(owner.client, { email: 'future-member@example.com', role: 'member' });

    const byOwner = await owner.client.get('/api/auth/organization/list-invitations');
    expect(byOwner.json.map((i: { email: string }) => i.email)).toEqual([
      'future-owner@example.com',
      'future-member@example.com',
    ]);
    const byAdmin = await admin.client.get('/api/auth/organization/list-invitations', {
      query: { organizationId: org.id },
    });
    expect(byAdmin.json.map((i: { email: string }) => i.email)).toEqual(['future-member@example.com']);
    const byMember = await member.client.get('/api/auth/organization/list-invitations', {
      query: { organizationId: org.id },
    });
    expect([byMember.status, byMember.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS']);
    const outsider = await user();
    const notMember = await outsider.client.get('/api/auth/organization/list-invitations', {
      query: { organizationId: org.id },
    });
    expect(notMember.status).toBe(403);
    expect(notMember.json).toEqual({
      code: 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION',
      message: 'You are not a member of this organization',
    });
    const noId = await outsider.client.get('/api/auth/organization/list-invitations');
    expect(noId.status).toBe(400);
    expect(noId.json).toEqual({ message: 'Organization ID is required' });

    expect((await owner.client.get('/api/auth/organization/get-full-organization')).json.invitations).toHaveLength(2);
    const memberFull = await member.client.get('/api/auth/organization/get-full-organization', {
      query: { organizationId: org.id },
    });
    expect(memberFull.json.invitations).toEqual([]);
  });

  it('list-user-invitations needs a verified address and lists pending invitations to it', async () => {
    const owner = await user();
    await createOrganization(owner.client);
    const invitee = await user();
    await invite(owner.client, { email: invitee.email, role: 'member' });
    const unverified = await invitee.client.get('/api/auth/organization/list-user-invitations');
    expect([unverified.status, unverified.json.code]).toEqual([403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION']);
    await verify(invitee.user.id);
    const listed = await invitee.client.get('/api/auth/organization/list-user-invitations');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual([expect.objectContaining({ email: invitee.email, status: 'pending' })]);
  });
});

describe('membership limit under concurrency', () => {
  it('admits exactly one of 101 parallel accepts into an organization at 99 members', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const fillers = await Promise.all(Array.from({ length: 98 }, () => user()));
    for (const filler of fillers) await addMember(daemon(), org.id, filler.user.id, 'member');
    const invitees = await Promise.all(Array.from({ length: 101 }, () => user()));
    const now = daemon().clock.now();
    const ids: string[] = [];
    for (const invitee of invitees) {
      const id = newAuthId();
      ids.push(id);
      await invitationsRepository(daemon().core.db).insert({
        id,
        organizationId: org.id,
        email: invitee.email,
        role: 'member',
        teamId: null,
        status: 'pending',
        inviterId: owner.user.id,
        expiresAt: new Date(now.getTime() + HOUR),
        createdAt: now,
      });
    }
    const results = await Promise.all(
      invitees.map((invitee, i) =>
        invitee.client.post('/api/auth/organization/accept-invitation', { invitationId: ids[i] }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 403 && r.json.code === 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED')).toBe(
      true,
    );
    expect((await owner.client.get('/api/auth/organization/list-members')).json.total).toBe(100);
  });
});
