import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/core/kernel/clock.js';
import { newAuthId } from '../../src/core/kernel/ids.js';
import { invitationsRepository } from '../../src/core/organizations/invitations-repository.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { createOrganization, signedInUser } from '../helpers/organizations.js';

describe('organization limit', () => {
  const daemon = useTestDaemon({
    organizations: { allowCreate: true, limit: 1, teams: false, allowRemovingAllTeams: false },
  });
  it('refuses a create past TILL_ORG_LIMIT', async () => {
    const { client } = await signedInUser(daemon());
    await createOrganization(client);
    const refused = await client.post('/api/auth/organization/create', { name: 'Two', slug: `two-${Date.now()}` });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      code: 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS',
      message: 'You have reached the maximum number of organizations',
    });
  });
});

describe('organization creation disabled', () => {
  const daemon = useTestDaemon({
    organizations: { allowCreate: false, limit: null, teams: false, allowRemovingAllTeams: false },
  });
  it('refuses every create', async () => {
    const { client } = await signedInUser(daemon());
    const refused = await client.post('/api/auth/organization/create', { name: 'One', slug: 'one' });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION');
  });
});

describe('requireEmailVerificationOnInvitation', () => {
  const daemon = useTestDaemon({
    organizations: {
      allowCreate: true,
      limit: null,
      teams: false,
      allowRemovingAllTeams: false,
      requireEmailVerificationOnInvitation: true,
    },
  });
  const verify = (userId: string) => daemon().core.db('users').where({ id: userId }).update({ email_verified: true });

  it('refuses an unverified recipient to view, accept or reject, and lets a verified one accept', async () => {
    const owner = await signedInUser(daemon());
    await createOrganization(owner.client);
    const invitee = await signedInUser(daemon());
    const sent = await owner.client.post('/api/auth/organization/invite-member', {
      email: invitee.email,
      role: 'member',
    });
    expect(sent.status, sent.text).toBe(200);
    const viewed = await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: sent.json.id } });
    expect([viewed.status, viewed.json.code]).toEqual([403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION']);
    for (const path of ['accept-invitation', 'reject-invitation']) {
      const refused = await invitee.client.post(`/api/auth/organization/${path}`, { invitationId: sent.json.id });
      expect([refused.status, refused.json.code]).toEqual([
        403,
        'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
      ]);
    }
    await verify(invitee.user.id);
    expect(
      (await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: sent.json.id } })).status,
    ).toBe(200);
    const accepted = await invitee.client.post('/api/auth/organization/accept-invitation', {
      invitationId: sent.json.id,
    });
    expect(accepted.status, accepted.text).toBe(200);
  });
});

describe('TILL_ORG_MEMBERSHIP_LIMIT under concurrency', () => {
  // The owner is a member too, so a limit of 101 leaves exactly 100 places for people joining.
  const daemon = useTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: false, allowRemovingAllTeams: false, membershipLimit: 101 },
  });

  it('101 parallel joins into an organization with 100 free places admit exactly 100', async () => {
    const owner = await signedInUser(daemon());
    const org = await createOrganization(owner.client);
    const invitees = await Promise.all(Array.from({ length: 101 }, () => signedInUser(daemon())));
    // Written straight to the table: invite-member stops at 100 pending invitations (Better Auth's invitationLimit).
    const now = daemon().clock.now();
    const ids = invitees.map(() => newAuthId());
    for (const [i, invitee] of invitees.entries()) {
      await invitationsRepository(daemon().core.db).insert({
        id: ids[i]!,
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
    expect(results.filter((r) => r.status === 200)).toHaveLength(100);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.json])).toEqual([
      [403, { code: 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED', message: 'Organization membership limit reached' }],
    ]);
    // The configured limit is also the most members one read returns: all 101 come back.
    const members = await owner.client.get('/api/auth/organization/list-members');
    expect(members.json.total).toBe(101);
    expect(members.json.members).toHaveLength(101);
    // The refused invitation is still pending, so it may be accepted once a place frees up.
    const pending = (await owner.client.get('/api/auth/organization/list-invitations')).json.filter(
      (i: { status: string }) => i.status === 'pending',
    );
    expect(pending).toHaveLength(1);
  });
});
