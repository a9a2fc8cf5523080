import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const daemon = useTestDaemon();
const user = (name?: string) => signedInUser(daemon(), name);

describe('GET /api/auth/organization/get-organization', () => {
  it('answers the active, named or slugged organization, null without one', async () => {
    const { client } = await user();
    expect((await client.get('/api/auth/organization/get-organization')).text).toBe('null');
    const org = await createOrganization(client);
    const active = await client.get('/api/auth/organization/get-organization');
    expect(active.status, active.text).toBe(200);
    expect(active.json).toEqual({
      id: org.id,
      name: 'Acme',
      slug: org.slug,
      logo: null,
      metadata: null,
      createdAt: '2026-11-21T12:00:00.000Z',
    });
    expect(
      (await client.get('/api/auth/organization/get-organization', { query: { organizationId: org.id } })).json.id,
    ).toBe(org.id);
    expect(
      (await client.get('/api/auth/organization/get-organization', { query: { organizationSlug: org.slug } })).json.id,
    ).toBe(org.id);
  });

  it('refuses non-members 403 and unknown organizations 400', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const outsider = await user();
    const refused = await outsider.client.get('/api/auth/organization/get-organization', {
      query: { organizationId: org.id },
    });
    expect([refused.status, refused.json.code]).toEqual([403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);
    const missing = await outsider.client.get('/api/auth/organization/get-organization', {
      query: { organizationSlug: 'no-such-org' },
    });
    expect([missing.status, missing.json.code]).toEqual([400, 'ORGANIZATION_NOT_FOUND']);
  });
});

describe('GET /api/auth/organization/get-active-member-role', () => {
  it('answers the caller’s role, or another member’s by userId', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const other = await user();
    await addMember(daemon(), org.id, other.user.id, 'admin');
    expect((await owner.client.get('/api/auth/organization/get-active-member-role')).json).toEqual({ role: 'owner' });
    const byUser = await owner.client.get('/api/auth/organization/get-active-member-role', {
      query: { userId: other.user.id },
    });
    expect(byUser.json).toEqual({ role: 'admin' });
    const bySlug = await other.client.get('/api/auth/organization/get-active-member-role', {
      query: { organizationSlug: org.slug },
    });
    expect(bySlug.json).toEqual({ role: 'admin' });
  });

  it('refuses non-members and unknown target users 403', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const outsider = await user();
    const refused = await outsider.client.get('/api/auth/organization/get-active-member-role', {
      query: { organizationId: org.id },
    });
    expect([refused.status, refused.json.code]).toEqual([403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION']);
    const stranger = await owner.client.get('/api/auth/organization/get-active-member-role', {
      query: { userId: outsider.user.id },
    });
    expect([stranger.status, stranger.json.code]).toEqual([403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION']);
    const none = await outsider.client.get('/api/auth/organization/get-active-member-role');
    expect([none.status, none.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
  });
});
