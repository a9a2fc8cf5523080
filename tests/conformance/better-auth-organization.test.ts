import { createAuthClient } from 'better-auth/client';
import { organizationClient } from 'better-auth/client/plugins';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';
import { CookieJar, PASSWORD } from './client.js';

// The organization routes driven by Better Auth's own client (1.7.25) with its organizationClient plugin: create,
// invite, accept by a second user, role change, leave and delete, as an application would call them.

const daemon = useTestDaemon();

function orgClient() {
  const jar = new CookieJar();
  const client = createAuthClient({
    baseURL: daemon().url,
    plugins: [organizationClient()],
    fetchOptions: {
      customFetchImpl: async (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (jar.cookies.size > 0) headers.set('cookie', jar.header());
        headers.set('origin', daemon().url);
        const response = await fetch(input, { ...init, headers });
        jar.absorb(response.headers);
        return response;
      },
    },
  });
  return client;
}

async function signedUp(name: string) {
  const client = orgClient();
  const email = uniqueEmail(name.toLowerCase());
  const { data, error } = await client.signUp.email({ name, email, password: PASSWORD });
  expect(error).toBeNull();
  return { client, email, userId: data!.user.id };
}

describe('Better Auth organizationClient against Till', () => {
  it('creates, invites, accepts, changes a role, leaves and deletes', async () => {
    const owner = await signedUp('Owner');
    const slug = `client-${Date.now()}`;
    const created = await owner.client.organization.create({ name: 'Client Org', slug, metadata: { tier: 'gold' } });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      name: 'Client Org',
      slug,
      metadata: { tier: 'gold' },
      members: [{ userId: owner.userId, role: 'owner' }],
    });
    const orgId = created.data!.id;
    expect((await owner.client.getSession()).data!.session.activeOrganizationId).toBe(orgId);

    const taken = await owner.client.organization.checkSlug({ slug });
    expect(taken.error).toMatchObject({
      status: 400,
      code: 'ORGANIZATION_SLUG_ALREADY_TAKEN',
      message: 'slug is taken',
    });

    const guest = await signedUp('Guest');
    const invited = await owner.client.organization.inviteMember({ email: guest.email, role: 'member' });
    expect(invited.error).toBeNull();
    expect(invited.data).toMatchObject({
      email: guest.email,
      role: 'member',
      status: 'pending',
      organizationId: orgId,
    });

    const shown = await guest.client.organization.getInvitation({ query: { id: invited.data!.id } });
    expect(shown.data).toMatchObject({
      organizationName: 'Client Org',
      organizationSlug: slug,
      inviterEmail: owner.email,
    });
    const accepted = await guest.client.organization.acceptInvitation({ invitationId: invited.data!.id });
    expect(accepted.error).toBeNull();
    expect(accepted.data!.member).toMatchObject({ userId: guest.userId, role: 'member' });
    expect((await guest.client.getSession()).data!.session.activeOrganizationId).toBe(orgId);

    const full = await owner.client.organization.getFullOrganization();
    expect(full.data!.members.map((m) => m.user.email).sort()).toEqual([owner.email, guest.email].sort());
    const guestMemberId = accepted.data!.member.id;
    const promoted = await owner.client.organization.updateMemberRole({ memberId: guestMemberId, role: 'admin' });
    expect(promoted.error).toBeNull();
    expect((await guest.client.organization.getActiveMember()).data).toMatchObject({ role: 'admin' });
    const allowed = await guest.client.organization.hasPermission({ permissions: { member: ['delete'] } });
    expect(allowed.data).toEqual({ error: null, success: true });

    const refused = await owner.client.organization.leave({ organizationId: orgId });
    expect(refused.error?.code).toBe('YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER');
    const left = await guest.client.organization.leave({ organizationId: orgId });
    expect(left.error).toBeNull();
    expect((await guest.client.organization.list()).data).toEqual([]);

    const deleted = await owner.client.organization.delete({ organizationId: orgId });
    expect(deleted.error).toBeNull();
    expect((await owner.client.organization.list()).data).toEqual([]);
    expect(
      (await owner.client.getSession({ query: { disableCookieCache: true } })).data!.session.activeOrganizationId,
    ).toBeNull();
  });
});
