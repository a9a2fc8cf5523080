import { beforeAll, describe, expect, it } from 'vitest';
import { TEXT_LIMITS } from '../../src/core/kernel/text.js';
import { adminPost } from '../helpers/api-keys.js';
import { TEST_SECRET, useTestDaemon } from '../helpers/daemon.js';
import { TestClient, uniqueEmail, type HttpResponse } from '../helpers/http.js';
import { createOrganization, signedInUser } from '../helpers/organizations.js';
import { adminToken } from '../../src/core/kernel/crypto.js';

// Before: each of these reached PostgreSQL (500 "invalid byte sequence for encoding UTF8: 0x00" or "value too long")
// while SQLite stored it. Now both databases give the same 400 in Better Auth's shape, naming the field.
const NUL = 'a\u0000b';
const daemon = useTestDaemon();

type Owner = Awaited<ReturnType<typeof signedInUser>>;
let owner: Owner;
let organizationId: string;
beforeAll(async () => {
  owner = await signedInUser(daemon());
  organizationId = (await createOrganization(owner.client)).id;
});

function expectNulRefused(response: HttpResponse, field: string): void {
  expect([response.status, response.json], response.text).toEqual([
    400,
    { code: 'VALIDATION_ERROR', message: `[${field}] String must not contain NUL characters` },
  ]);
}

function expectTooLong(response: HttpResponse, field: string, max: number): void {
  expect([response.status, response.json], response.text).toEqual([
    400,
    { code: 'VALIDATION_ERROR', message: `[${field}] Too big: expected string to have <=${max} characters` },
  ]);
}

const admin = () => new TestClient(daemon().url, { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } });

describe('NUL characters in /api/auth and operator input: 400 VALIDATION_ERROR on both databases', () => {
  it('organization routes (bodies, queries, nested fields and keys)', async () => {
    const c = owner.client;
    expectNulRefused(await c.post('/api/auth/organization/create', { name: NUL, slug: 'nul-name' }), 'body.name');
    expectNulRefused(await c.post('/api/auth/organization/create', { name: 'x', slug: NUL }), 'body.slug');
    expectNulRefused(
      await c.post('/api/auth/organization/create', { name: 'x', slug: 'nul-meta', metadata: { k: NUL } }),
      'body.metadata.k',
    );
    expectNulRefused(
      await c.post('/api/auth/organization/create', { name: 'x', slug: 'nul-key', metadata: { [NUL]: 1 } }),
      'body.metadata.a\\0b',
    );
    expectNulRefused(
      await c.post('/api/auth/organization/update', { data: { name: NUL }, organizationId }),
      'body.data.name',
    );
    expectNulRefused(await c.post('/api/auth/organization/check-slug', { slug: NUL }), 'body.slug');
    expectNulRefused(
      await c.get('/api/auth/organization/get-full-organization', { query: { organizationSlug: NUL } }),
      'query.organizationSlug',
    );
    expectNulRefused(await c.post('/api/auth/organization/set-active', { organizationId: NUL }), 'body.organizationId');
    expectNulRefused(
      await c.post('/api/auth/organization/remove-member', { memberIdOrEmail: NUL, organizationId }),
      'body.memberIdOrEmail',
    );
    expectNulRefused(
      await c.post('/api/auth/organization/accept-invitation', { invitationId: NUL }),
      'body.invitationId',
    );
    expectNulRefused(await c.get('/api/auth/organization/get-invitation', { query: { id: NUL } }), 'query.id');
    expectNulRefused(
      await c.post('/api/auth/organization/invite-member', { email: 'x@example.com', role: ['member', NUL] }),
      'body.role.1',
    );
  });

  it('API key routes', async () => {
    const c = owner.client;
    expectNulRefused(await c.post('/api/auth/api-key/create', { name: NUL }), 'body.name');
    expectNulRefused(await c.post('/api/auth/api-key/create', { metadata: { k: [NUL] } }), 'body.metadata.k.0');
    expectNulRefused(await c.post('/api/auth/api-key/create', { organizationId: NUL }), 'body.organizationId');
    expectNulRefused(await c.post('/api/auth/api-key/update', { keyId: NUL, name: 'x' }), 'body.keyId');
    expectNulRefused(await c.get('/api/auth/api-key/get', { query: { id: NUL } }), 'query.id');
    expectNulRefused(await c.get('/api/auth/api-key/list', { query: { organizationId: NUL } }), 'query.organizationId');
  });

  it('user and account routes, signed in or not', async () => {
    const c = owner.client;
    expectNulRefused(await c.post('/api/auth/update-user', { name: NUL }), 'body.name');
    expectNulRefused(await c.post('/api/auth/update-user', { image: NUL }), 'body.image');
    expectNulRefused(await c.get('/api/auth/account-info', { query: { accountId: NUL } }), 'query.accountId');
    expectNulRefused(await c.post('/api/auth/get-access-token', { accountId: NUL }), 'body.accountId');
    const anonymous = new TestClient(daemon().url, { origin: daemon().url });
    expectNulRefused(
      await anonymous.post('/api/auth/sign-up/email', { email: uniqueEmail(), password: 'password123', name: NUL }),
      'body.name',
    );
    expectNulRefused(
      await anonymous.get('/api/auth/callback/idp', { query: { state: NUL, code: 'x' } }),
      'query.state',
    );
    expectNulRefused(await anonymous.get('/api/auth/reset-password/a%00b?callbackURL=/x'), 'path.token');
  });

  it('the operator API', async () => {
    expectNulRefused(
      await adminPost(daemon(), '/set-password', { email: NUL, newPassword: 'password123' }),
      'body.email',
    );
    expectNulRefused(
      await adminPost(daemon(), '/set-password', { userId: NUL, newPassword: 'password123' }),
      'body.userId',
    );
    expectNulRefused(await adminPost(daemon(), '/api-keys/create', { userId: owner.user.id, name: NUL }), 'body.name');
    expectNulRefused(await adminPost(daemon(), '/api-keys/create', { userId: NUL }), 'body.userId');
    expectNulRefused(await adminPost(daemon(), '/api-keys/update', { keyId: NUL }), 'body.keyId');
    expectNulRefused(
      await adminPost(daemon(), '/api-keys/create', { userId: owner.user.id, permissions: { a: [NUL] } }),
      'body.permissions.a.0',
    );
    expectNulRefused(await admin().get('/api/admin/mails/a%00b'), 'path');
  });
});

describe('over-long strings in /api/auth input: the column widths, the same on both databases', () => {
  it('organization slug, name, logo and invitation e-mail', async () => {
    const c = owner.client;
    const long = (length: number) => 'x'.repeat(length);
    expectTooLong(await c.post('/api/auth/organization/create', { name: 'x', slug: long(300) }), 'body.slug', 255);
    expectTooLong(
      await c.post('/api/auth/organization/create', { name: 'x', slug: long(1_000_000) }),
      'body.slug',
      TEXT_LIMITS.slug,
    );
    expectTooLong(await c.post('/api/auth/organization/check-slug', { slug: long(256) }), 'body.slug', 255);
    expectTooLong(
      await c.post('/api/auth/organization/update', { data: { name: long(256) }, organizationId }),
      'body.data.name',
      TEXT_LIMITS.name,
    );
    expectTooLong(
      await c.post('/api/auth/organization/create', { name: 'x', slug: 'long-logo', logo: long(2049) }),
      'body.logo',
      TEXT_LIMITS.url,
    );
    expectTooLong(
      await c.post('/api/auth/organization/invite-member', {
        email: `${long(288)}@example.com`,
        role: 'member',
        organizationId,
      }),
      'body.email',
      254,
    );
    const metadata = await c.post('/api/auth/organization/create', {
      name: 'x',
      slug: 'big-metadata',
      metadata: { k: long(TEXT_LIMITS.json) },
    });
    expect([metadata.status, metadata.json]).toEqual([
      400,
      {
        code: 'VALIDATION_ERROR',
        message: `[body.metadata] Too big: expected metadata to have <=${TEXT_LIMITS.json} characters as JSON`,
      },
    ]);

    // At the limit is fine: what the schema lets through, the column holds.
    const widest = await c.post('/api/auth/organization/create', { name: long(255), slug: long(255) });
    expect(widest.status, widest.text).toBe(200);
    expect(widest.json.slug).toBe(long(255));
  });

  it('user name and image, API key metadata and the operator’s permissions', async () => {
    const c = owner.client;
    expectTooLong(await c.post('/api/auth/update-user', { name: 'n'.repeat(1_000_000) }), 'body.name', 255);
    expectTooLong(await c.post('/api/auth/update-user', { image: 'i'.repeat(2049) }), 'body.image', 2048);
    const anonymous = new TestClient(daemon().url, { origin: daemon().url });
    expectTooLong(
      await anonymous.post('/api/auth/sign-up/email', {
        email: uniqueEmail(),
        password: 'password123',
        name: 'n'.repeat(256),
      }),
      'body.name',
      255,
    );
    const key = await c.post('/api/auth/api-key/create', { metadata: { k: 'm'.repeat(TEXT_LIMITS.json) } });
    expect([key.status, key.json.message]).toEqual([
      400,
      `[body.metadata] Too big: expected metadata to have <=${TEXT_LIMITS.json} characters as JSON`,
    ]);
    const permissions = await adminPost(daemon(), '/api-keys/create', {
      userId: owner.user.id,
      permissions: { a: ['p'.repeat(TEXT_LIMITS.json)] },
    });
    expect([permissions.status, permissions.json.message]).toEqual([
      400,
      `[body.permissions] Too big: expected permissions to have <=${TEXT_LIMITS.json} characters as JSON`,
    ]);
    const fits = await c.post('/api/auth/update-user', { name: 'n'.repeat(255) });
    expect(fits.status, fits.text).toBe(200);
  });
});
