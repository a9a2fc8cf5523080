import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createOrganization, signedInUser } from '../helpers/organizations.js';

describe('organization limit', () => {
  const daemon = useTestDaemon({ organizations: { allowCreate: true, limit: 1, teams: false, allowRemovingAllTeams: false } });
  it('refuses a create past TILL_ORG_LIMIT', async () => {
    const { client } = await signedInUser(daemon());
    await createOrganization(client);
    const refused = await client.post('/api/auth/organization/create', { name: 'Two', slug: `two-${Date.now()}` });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ code: 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS', message: 'You have reached the maximum number of organizations' });
  });
});

describe('organization creation disabled', () => {
  const daemon = useTestDaemon({ organizations: { allowCreate: false, limit: null, teams: false, allowRemovingAllTeams: false } });
  it('refuses every create', async () => {
    const { client } = await signedInUser(daemon());
    const refused = await client.post('/api/auth/organization/create', { name: 'One', slug: 'one' });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION');
  });
});

describe('requireEmailVerificationOnInvitation', () => {
  const daemon = useTestDaemon({
    organizations: { allowCreate: true, limit: null, teams: false, allowRemovingAllTeams: false, requireEmailVerificationOnInvitation: true },
  });
  const verify = (userId: string) => daemon().core.db('users').where({ id: userId }).update({ email_verified: true });

  it('refuses an unverified recipient to view, accept or reject, and lets a verified one accept', async () => {
    const owner = await signedInUser(daemon());
    await createOrganization(owner.client);
    const invitee = await signedInUser(daemon());
    const sent = await owner.client.post('/api/auth/organization/invite-member', { email: invitee.email, role: 'member' });
    expect(sent.status, sent.text).toBe(200);
    const viewed = await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: sent.json.id } });
    expect([viewed.status, viewed.json.code]).toEqual([403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION']);
    for (const path of ['accept-invitation', 'reject-invitation']) {
      const refused = await invitee.client.post(`/api/auth/organization/${path}`, { invitationId: sent.json.id });
      expect([refused.status, refused.json.code]).toEqual([403, 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION']);
    }
    await verify(invitee.user.id);
    expect((await invitee.client.get('/api/auth/organization/get-invitation', { query: { id: sent.json.id } })).status).toBe(200);
    const accepted = await invitee.client.post('/api/auth/organization/accept-invitation', { invitationId: sent.json.id });
    expect(accepted.status, accepted.text).toBe(200);
  });
});
