import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const daemon = useTestDaemon();
const user = (name?: string) => signedInUser(daemon(), name);
const activeOf = async (client: TestClient) =>
  (await client.get('/api/auth/get-session')).json.session.activeOrganizationId;
const slug = () => `acme-${Math.random().toString(36).slice(2, 10)}`;

describe('POST /api/auth/organization/create', () => {
  it('creates the organization with its creator as owner and makes it active without a new cookie', async () => {
    const { client, user: me } = await user();
    const s = slug();
    const response = await client.post('/api/auth/organization/create', {
      name: 'Acme',
      slug: s,
      logo: 'https://x/logo.png',
      metadata: { plan: 'pro' },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      name: 'Acme',
      slug: s,
      logo: 'https://x/logo.png',
      createdAt: '2026-11-21T12:00:00.000Z',
      metadata: { plan: 'pro' },
      members: [
        {
          id: expect.any(String),
          organizationId: response.json.id,
          userId: me.id,
          role: 'owner',
          createdAt: '2026-11-21T12:00:00.000Z',
        },
      ],
    });
    expect(response.setCookies).toEqual([]);
    // The cached get-session answer shows the change at once.
    expect(await activeOf(client)).toBe(response.json.id);
  });

  it('keeps the current active organization when asked', async () => {
    const { client } = await user();
    const first = await createOrganization(client);
    await client.post('/api/auth/organization/create', {
      name: 'Second',
      slug: slug(),
      keepCurrentActiveOrganization: true,
    });
    expect(await activeOf(client)).toBe(first.id);
  });

  it('answers 401 with an empty body without a session, and refuses taken slugs and bad input', async () => {
    const anonymous = new TestClient(daemon().url, { origin: daemon().url });
    const response = await anonymous.post('/api/auth/organization/create', { name: 'A', slug: slug() });
    expect(response.status).toBe(401);
    expect(response.text).toBe('');
    const { client } = await user();
    const org = await createOrganization(client);
    const taken = await client.post('/api/auth/organization/create', { name: 'B', slug: org.slug });
    expect(taken.status).toBe(400);
    expect(taken.json).toEqual({ code: 'ORGANIZATION_ALREADY_EXISTS', message: 'Organization already exists' });
    expect((await client.post('/api/auth/organization/create', { name: '', slug: slug() })).json.code).toBe(
      'VALIDATION_ERROR',
    );
  });
});

describe('POST /api/auth/organization/check-slug', () => {
  it('answers status true for a free slug and 400 for a taken one', async () => {
    const { client } = await user();
    const org = await createOrganization(client);
    expect((await client.post('/api/auth/organization/check-slug', { slug: slug() })).json).toEqual({ status: true });
    const taken = await client.post('/api/auth/organization/check-slug', { slug: org.slug });
    expect(taken.status).toBe(400);
    // The spec's message; Better Auth's code, which its client matches on.
    expect(taken.json).toEqual({ code: 'ORGANIZATION_SLUG_ALREADY_TAKEN', message: 'slug is taken' });
    const anonymous = new TestClient(daemon().url, { origin: daemon().url });
    expect((await anonymous.post('/api/auth/organization/check-slug', { slug: slug() })).status).toBe(401);
  });
});

describe('POST /api/auth/organization/update', () => {
  it('updates the active organization for owners and admins, not members', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const updated = await owner.client.post('/api/auth/organization/update', {
      data: { name: 'Renamed', metadata: { a: 1 } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ id: org.id, name: 'Renamed', slug: org.slug, metadata: { a: 1 } });

    const member = await user();
    await addMember(daemon(), org.id, member.user.id, 'member');
    const refused = await member.client.post('/api/auth/organization/update', {
      organizationId: org.id,
      data: { name: 'Mine' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION');

    const admin = await user();
    await addMember(daemon(), org.id, admin.user.id, 'admin');
    expect(
      (await admin.client.post('/api/auth/organization/update', { organizationId: org.id, data: { logo: 'l' } })).json
        .logo,
    ).toBe('l');
  });

  it('refuses without an organization, to non-members, and for a taken slug', async () => {
    const { client } = await user();
    const none = await client.post('/api/auth/organization/update', { data: { name: 'x' } });
    expect([none.status, none.json.code]).toEqual([400, 'ORGANIZATION_NOT_FOUND']);
    const other = await user();
    const theirs = await createOrganization(other.client);
    const mine = await createOrganization(client);
    const outsider = await client.post('/api/auth/organization/update', {
      organizationId: theirs.id,
      data: { name: 'x' },
    });
    expect([outsider.status, outsider.json.code]).toEqual([400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);
    const taken = await client.post('/api/auth/organization/update', {
      organizationId: mine.id,
      data: { slug: theirs.slug },
    });
    expect([taken.status, taken.json.code]).toEqual([400, 'ORGANIZATION_SLUG_ALREADY_TAKEN']);
  });
});

describe('GET /api/auth/organization/list and POST set-active', () => {
  it('lists the caller’s organizations with metadata as a JSON string', async () => {
    const { client } = await user();
    const s = slug();
    await client.post('/api/auth/organization/create', { name: 'Listed', slug: s, metadata: { k: 'v' } });
    const list = await client.get('/api/auth/organization/list');
    expect(list.status).toBe(200);
    expect(list.json).toEqual([expect.objectContaining({ name: 'Listed', slug: s, metadata: '{"k":"v"}' })]);
    const other = await user();
    expect((await other.client.get('/api/auth/organization/list')).json).toEqual([]);
  });

  it('sets the active organization by id or slug, re-issues the cookie, and unsets it with null', async () => {
    const { client } = await user();
    const first = await createOrganization(client);
    const second = await createOrganization(client);
    expect(await activeOf(client)).toBe(second.id);
    const set = await client.post('/api/auth/organization/set-active', { organizationId: first.id });
    expect(set.status).toBe(200);
    expect(set.json.id).toBe(first.id);
    expect(set.setCookies.some((cookie) => cookie.startsWith('better-auth.session_token='))).toBe(true);
    expect(await activeOf(client)).toBe(first.id);
    expect((await client.post('/api/auth/organization/set-active', { organizationSlug: second.slug })).json.id).toBe(
      second.id,
    );
    const unset = await client.post('/api/auth/organization/set-active', { organizationId: null });
    expect(unset.text).toBe('null');
    expect(await activeOf(client)).toBeNull();
  });

  it('refuses an unknown organization and a non-member, clearing the active one', async () => {
    const { client } = await user();
    await createOrganization(client);
    const unknown = await client.post('/api/auth/organization/set-active', { organizationId: 'nope' });
    expect([unknown.status, unknown.json.code]).toEqual([400, 'ORGANIZATION_NOT_FOUND']);
    const other = await user();
    const theirs = await createOrganization(other.client);
    const refused = await client.post('/api/auth/organization/set-active', { organizationId: theirs.id });
    expect([refused.status, refused.json.code]).toEqual([403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);
    expect(await activeOf(client)).toBeNull();
  });
});

describe('GET /api/auth/organization/get-full-organization', () => {
  it('answers the active organization with members and their users, null without one', async () => {
    const { client, user: me } = await user('Owner');
    const fresh = await client.get('/api/auth/organization/get-full-organization');
    expect(fresh.text).toBe('null');
    const org = await createOrganization(client);
    const full = await client.get('/api/auth/organization/get-full-organization');
    expect(full.status).toBe(200);
    expect(full.json).toMatchObject({ id: org.id, metadata: null, invitations: [] });
    expect(full.json.members).toEqual([
      expect.objectContaining({
        userId: me.id,
        role: 'owner',
        user: { id: me.id, name: 'Owner', email: me.email, image: null },
      }),
    ]);
    expect(
      (await client.get('/api/auth/organization/get-full-organization', { query: { organizationSlug: org.slug } })).json
        .id,
    ).toBe(org.id);
  });

  it('caps members at the membership limit and refuses non-members and unknown organizations', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const extra = await Promise.all(Array.from({ length: 101 }, () => user()));
    for (const member of extra) await addMember(daemon(), org.id, member.user.id, 'member');
    const full = await owner.client.get('/api/auth/organization/get-full-organization');
    expect(full.json.members).toHaveLength(100);
    const listed = await owner.client.get('/api/auth/organization/list-members');
    expect(listed.json.members).toHaveLength(100);
    expect(listed.json.total).toBe(102);
    const limited = await owner.client.get('/api/auth/organization/get-full-organization', {
      query: { membersLimit: '2' },
    });
    expect(limited.json.members).toHaveLength(2);

    const outsider = await user();
    const refused = await outsider.client.get('/api/auth/organization/get-full-organization', {
      query: { organizationId: org.id },
    });
    expect([refused.status, refused.json.code]).toEqual([403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);
    const missing = await outsider.client.get('/api/auth/organization/get-full-organization', {
      query: { organizationId: 'missing' },
    });
    expect([missing.status, missing.json.code]).toEqual([400, 'ORGANIZATION_NOT_FOUND']);
  });
});

describe('POST /api/auth/organization/delete', () => {
  it('lets only an owner delete, answers the organization, and clears it from active sessions', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const admin = await user();
    await addMember(daemon(), org.id, admin.user.id, 'admin');
    await admin.client.post('/api/auth/organization/set-active', { organizationId: org.id });
    const refused = await admin.client.post('/api/auth/organization/delete', { organizationId: org.id });
    expect([refused.status, refused.json.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION']);
    const outsider = await user();
    const notMember = await outsider.client.post('/api/auth/organization/delete', { organizationId: org.id });
    expect([notMember.status, notMember.json.code]).toEqual([400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);

    const deleted = await owner.client.post('/api/auth/organization/delete', { organizationId: org.id });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toMatchObject({ id: org.id, slug: org.slug, metadata: null });
    expect(await activeOf(owner.client)).toBeNull();
    expect(await activeOf(admin.client)).toBeNull();
    expect((await owner.client.get('/api/auth/organization/list')).json).toEqual([]);
  });
});

describe('POST /api/auth/organization/has-permission', () => {
  it('answers by the caller’s role in the active or named organization', async () => {
    const owner = await user();
    const org = await createOrganization(owner.client);
    const member = await user();
    await addMember(daemon(), org.id, member.user.id, 'member');
    const ask = (client: TestClient, permissions: Record<string, string[]>) =>
      client.post('/api/auth/organization/has-permission', { organizationId: org.id, permissions });
    expect((await ask(owner.client, { organization: ['delete'] })).json).toEqual({ error: null, success: true });
    expect((await ask(member.client, { member: ['delete'] })).json).toEqual({ error: null, success: false });
    expect((await ask(member.client, { ac: ['read'] })).json.success).toBe(true);
    expect(
      (await owner.client.post('/api/auth/organization/has-permission', { permission: { member: ['create'] } })).json
        .success,
    ).toBe(true);

    const outsider = await user();
    const refused = await ask(outsider.client, { ac: ['read'] });
    expect([refused.status, refused.json.code]).toEqual([401, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION']);
    const noActive = await outsider.client.post('/api/auth/organization/has-permission', {
      permissions: { ac: ['read'] },
    });
    expect([noActive.status, noActive.json.code]).toEqual([400, 'NO_ACTIVE_ORGANIZATION']);
  });
});

describe('organization creation switches', () => {
  it('are read from TILL_ORG_ALLOW_CREATE and TILL_ORG_LIMIT', async () => {
    const { loadConfig } = await import('../../src/core/config/index.js');
    expect(loadConfig({ TILL_SECRET: 'x'.repeat(32) }).organizations).toEqual({
      allowCreate: true,
      limit: null,
      teams: false,
      allowRemovingAllTeams: false,
      requireEmailVerificationOnInvitation: false,
      maximumMembersPerTeam: null,
      membershipLimit: 100,
    });
    expect(
      loadConfig({
        TILL_SECRET: 'x'.repeat(32),
        TILL_ORG_ALLOW_CREATE: 'off',
        TILL_ORG_LIMIT: '2',
        TILL_ORG_TEAMS: 'on',
        TILL_ORG_ALLOW_REMOVING_ALL_TEAMS: 'on',
        TILL_ORG_REQUIRE_EMAIL_VERIFICATION_ON_INVITATION: 'on',
        TILL_ORG_MAXIMUM_MEMBERS_PER_TEAM: '3',
        TILL_ORG_MEMBERSHIP_LIMIT: '250',
      }).organizations,
    ).toEqual({
      allowCreate: false,
      limit: 2,
      teams: true,
      allowRemovingAllTeams: true,
      requireEmailVerificationOnInvitation: true,
      maximumMembersPerTeam: 3,
      membershipLimit: 250,
    });
    expect(() => loadConfig({ TILL_SECRET: 'x'.repeat(32), TILL_ORG_MEMBERSHIP_LIMIT: '0' })).toThrow(
      /TILL_ORG_MEMBERSHIP_LIMIT/,
    );
  });
});
