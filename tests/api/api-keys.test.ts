import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY } from '../../src/core/kernel/clock.js';
import { adminKey, adminPost, keyOwner } from '../helpers/api-keys.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { testDialect } from '../helpers/database.js';
import { TestClient } from '../helpers/http.js';

// The api-key plugin's routes (reference §7): shapes, ownership, and every validation error. Authentication by
// key, limits and the cache are in api-key-auth.test.ts.

const daemon = useTestDaemon();
const anonymous = () => new TestClient(daemon().url, { origin: daemon().url });
const error = (status: number, code: string, message?: string) => ({
  status,
  json: expect.objectContaining({ code, ...(message ? { message } : {}) }),
});
const pick = (response: { status: number; json: unknown }) => ({ status: response.status, json: response.json });

describe('POST /api-key/create', () => {
  it('returns the key object with the key itself, once; only a digest is stored', async () => {
    const { client, user } = await keyOwner(daemon());
    const now = daemon().clock.now();
    const created = await client.post('/api/auth/api-key/create', {});
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      configId: 'default',
      name: null,
      start: created.json.key.slice(0, 6),
      prefix: null,
      referenceId: user.id,
      enabled: true,
      // Till does not turn on Better Auth's default per-key limit of 10 requests a day.
      rateLimitEnabled: false,
      rateLimitTimeWindow: null,
      rateLimitMax: null,
      requestCount: 0,
      remaining: null,
      refillAmount: null,
      refillInterval: null,
      lastRefillAt: null,
      lastRequest: null,
      expiresAt: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      permissions: null,
      metadata: null,
      key: expect.stringMatching(/^[A-Za-z]{64}$/),
    });
    const row = await daemon().core.db('api_keys').where({ id: created.json.id }).first();
    expect(row.key_hash).toBe(createHash('sha256').update(created.json.key).digest('base64url'));
    expect(JSON.stringify(row)).not.toContain(created.json.key);
    const fetched = await client.get('/api/auth/api-key/get', { query: { id: created.json.id } });
    expect(fetched.json).not.toHaveProperty('key');
    const { key: _key, ...withoutKey } = created.json;
    expect(fetched.json).toEqual(withoutKey);
  });

  it('takes a name, an expiry in seconds, a prefix and metadata', async () => {
    const { client } = await keyOwner(daemon());
    const now = daemon().clock.now().getTime();
    const created = await client.post('/api/auth/api-key/create', {
      name: 'ci',
      expiresIn: 30 * 86400,
      prefix: 'till_',
      metadata: { team: 'ops' },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({
      name: 'ci',
      prefix: 'till_',
      start: 'till_' + created.json.key[5],
      metadata: { team: 'ops' },
    });
    expect(created.json.key).toMatch(/^till_[A-Za-z]{64}$/);
    expect(created.json.expiresAt).toBe(new Date(now + 30 * DAY).toISOString());
  });

  it('checks names, prefixes, expiry bounds and metadata', async () => {
    const { client } = await keyOwner(daemon());
    const create = async (body: unknown) => pick(await client.post('/api/auth/api-key/create', body));
    expect(await create({ name: '' })).toMatchObject(
      error(400, 'INVALID_NAME_LENGTH', 'The name length is either too large or too small.'),
    );
    expect(await create({ name: 'n'.repeat(33) })).toMatchObject(error(400, 'INVALID_NAME_LENGTH'));
    expect(await create({ prefix: 'p'.repeat(33) })).toMatchObject(
      error(400, 'INVALID_PREFIX_LENGTH', 'The prefix length is either too large or too small.'),
    );
    expect(await create({ prefix: 'no spaces' })).toMatchObject(error(400, 'VALIDATION_ERROR'));
    expect(await create({ expiresIn: 86399 })).toMatchObject(
      error(400, 'EXPIRES_IN_IS_TOO_SMALL', 'The expiresIn is smaller than the predefined minimum value.'),
    );
    expect(await create({ expiresIn: 366 * 86400 })).toMatchObject(
      error(400, 'EXPIRES_IN_IS_TOO_LARGE', 'The expiresIn is larger than the predefined maximum value.'),
    );
    expect(await create({ metadata: 'text' })).toMatchObject(
      error(400, 'INVALID_METADATA_TYPE', 'metadata must be an object or undefined'),
    );
    expect(await create({ metadata: [1] })).toMatchObject(error(400, 'INVALID_METADATA_TYPE'));
    expect(await create({ unknownField: 1 })).toMatchObject(error(400, 'VALIDATION_ERROR'));
    expect(await create({ name: 'n'.repeat(32), prefix: 'p'.repeat(32), expiresIn: 86400 })).toMatchObject({
      status: 200,
    });
    expect(await create({ expiresIn: 365 * 86400 })).toMatchObject({ status: 200 });
  });

  it.each([
    'remaining',
    'refillAmount',
    'refillInterval',
    'rateLimitEnabled',
    'rateLimitTimeWindow',
    'rateLimitMax',
    'permissions',
    'userId',
  ])('refuses the server-only field %s, before even looking at the session', async (field) => {
    const { client } = await keyOwner(daemon());
    const value =
      field === 'permissions'
        ? { files: ['read'] }
        : field === 'rateLimitEnabled'
          ? true
          : field === 'userId'
            ? 'someone'
            : 5;
    const message = "The property you're trying to set can only be set from the server auth instance only.";
    expect(pick(await client.post('/api/auth/api-key/create', { [field]: value }))).toMatchObject(
      error(400, 'SERVER_ONLY_PROPERTY', message),
    );
    expect(pick(await anonymous().post('/api/auth/api-key/create', { [field]: value }))).toMatchObject(
      error(400, 'SERVER_ONLY_PROPERTY'),
    );
  });

  it("accepts Better Auth's client default remaining: null", async () => {
    const { client } = await keyOwner(daemon());
    expect((await client.post('/api/auth/api-key/create', { remaining: null })).status).toBe(200);
  });

  it('needs a session, and refuses organization-owned keys to non-members', async () => {
    expect(pick(await anonymous().post('/api/auth/api-key/create', {}))).toMatchObject(
      error(401, 'UNAUTHORIZED_SESSION', 'Unauthorized or invalid session'),
    );
    const { client } = await keyOwner(daemon());
    const message = 'You are not a member of the organization that owns this API key.';
    expect(pick(await client.post('/api/auth/api-key/create', { organizationId: 'org_1' }))).toMatchObject(
      error(403, 'USER_NOT_MEMBER_OF_ORGANIZATION', message),
    );
    expect(pick(await client.get('/api/auth/api-key/list', { query: { organizationId: 'org_1' } }))).toMatchObject(
      error(403, 'USER_NOT_MEMBER_OF_ORGANIZATION'),
    );
  });
});

describe('GET /api-key/get and /api-key/list', () => {
  it('shows a key to its owner only: anyone else hears "API Key not found"', async () => {
    const owner = await keyOwner(daemon());
    const other = await keyOwner(daemon());
    const { json: key } = await owner.client.post('/api/auth/api-key/create', { name: 'mine' });
    expect((await owner.client.get('/api/auth/api-key/get', { query: { id: key.id } })).json).toMatchObject({
      id: key.id,
      name: 'mine',
    });
    const notFound = error(404, 'KEY_NOT_FOUND', 'API Key not found');
    expect(pick(await other.client.get('/api/auth/api-key/get', { query: { id: key.id } }))).toMatchObject(notFound);
    expect(pick(await owner.client.get('/api/auth/api-key/get', { query: { id: 'missing' } }))).toMatchObject(notFound);
    expect(pick(await owner.client.get('/api/auth/api-key/get'))).toMatchObject(error(400, 'VALIDATION_ERROR'));
    expect(pick(await anonymous().get('/api/auth/api-key/get', { query: { id: key.id } }))).toMatchObject(
      error(401, 'UNAUTHORIZED'),
    );
  });

  it("lists the caller's keys without the keys themselves, with paging and sorting", async () => {
    const owner = await keyOwner(daemon());
    const other = await keyOwner(daemon());
    await other.client.post('/api/auth/api-key/create', { name: 'theirs' });
    for (const name of ['b', 'a', 'c']) {
      await owner.client.post('/api/auth/api-key/create', { name });
      daemon().clock.advance(1000);
    }
    const all = await owner.client.get('/api/auth/api-key/list');
    expect(all.status).toBe(200);
    expect(all.json.total).toBe(3);
    expect(all.json.apiKeys.map((k: { name: string }) => k.name)).toEqual(['b', 'a', 'c']);
    for (const key of all.json.apiKeys) expect(key).not.toHaveProperty('key');
    expect(all.json).not.toHaveProperty('limit');
    const page = await owner.client.get('/api/auth/api-key/list', {
      query: { sortBy: 'name', sortDirection: 'desc', limit: '2', offset: '1' },
    });
    expect(page.json).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.json.apiKeys.map((k: { name: string }) => k.name)).toEqual(['b', 'a']);
    expect(pick(await owner.client.get('/api/auth/api-key/list', { query: { sortBy: 'key' } }))).toMatchObject(
      error(400, 'VALIDATION_ERROR'),
    );
    expect(pick(await anonymous().get('/api/auth/api-key/list'))).toMatchObject(error(401, 'UNAUTHORIZED'));
  });
});

describe('POST /api-key/update and /api-key/delete', () => {
  it('changes name, enabled, expiry and metadata', async () => {
    const { client } = await keyOwner(daemon());
    const { json: key } = await client.post('/api/auth/api-key/create', { name: 'old', expiresIn: 86400 });
    daemon().clock.advance(5000);
    const now = daemon().clock.now().getTime();
    const updated = await client.post('/api/auth/api-key/update', {
      keyId: key.id,
      name: 'new',
      enabled: false,
      expiresIn: 2 * 86400,
      metadata: { a: 1 },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      id: key.id,
      name: 'new',
      enabled: false,
      metadata: { a: 1 },
      expiresAt: new Date(now + 2 * DAY).toISOString(),
    });
    expect(updated.json.updatedAt).toBe(new Date(now).toISOString());
    expect(updated.json).not.toHaveProperty('key');
    const cleared = await client.post('/api/auth/api-key/update', { keyId: key.id, expiresIn: null, metadata: null });
    expect(cleared.json).toMatchObject({ expiresAt: null, metadata: null });
  });

  it('answers every way an update can fail', async () => {
    const owner = await keyOwner(daemon());
    const other = await keyOwner(daemon());
    const { json: key } = await owner.client.post('/api/auth/api-key/create', {});
    const update = async (client: TestClient, body: unknown) =>
      pick(await client.post('/api/auth/api-key/update', body));
    expect(await update(owner.client, { keyId: key.id })).toMatchObject(
      error(400, 'NO_VALUES_TO_UPDATE', 'No values to update.'),
    );
    expect(await update(owner.client, { keyId: 'missing', name: 'x' })).toMatchObject(
      error(404, 'KEY_NOT_FOUND', 'API Key not found'),
    );
    expect(await update(other.client, { keyId: key.id, name: 'x' })).toMatchObject(error(404, 'KEY_NOT_FOUND'));
    expect(await update(owner.client, { keyId: key.id, remaining: 5 })).toMatchObject(
      error(400, 'SERVER_ONLY_PROPERTY'),
    );
    expect(await update(owner.client, { keyId: key.id, name: '' })).toMatchObject(error(400, 'INVALID_NAME_LENGTH'));
    expect(await update(owner.client, { keyId: key.id, expiresIn: 60 })).toMatchObject(
      error(400, 'EXPIRES_IN_IS_TOO_SMALL'),
    );
    expect(await update(owner.client, { keyId: key.id, expiresIn: 400 * 86400 })).toMatchObject(
      error(400, 'EXPIRES_IN_IS_TOO_LARGE'),
    );
    expect(await update(owner.client, { keyId: key.id, metadata: 3 })).toMatchObject(
      error(400, 'INVALID_METADATA_TYPE'),
    );
    expect(await update(anonymous(), { keyId: key.id, name: 'x' })).toMatchObject(error(401, 'UNAUTHORIZED_SESSION'));
  });

  it('answers "Failed to update API key" when the key vanishes between finding it and writing it', async () => {
    const { client } = await keyOwner(daemon());
    const { json: key } = await client.post('/api/auth/api-key/create', {});
    // A trigger drops the write to this one row, exactly as if a concurrent delete had won the race.
    const db = daemon().core.db;
    if (testDialect === 'postgres') {
      await db.raw(
        'create or replace function till_test_drop_write() returns trigger language plpgsql as $$ begin return null; end $$',
      );
      await db.raw(
        `create trigger till_test_drop_write before update on api_keys for each row when (old.id = '${key.id}') execute function till_test_drop_write()`,
      );
    } else {
      await db.raw(
        `create trigger till_test_drop_write before update on api_keys for each row when old.id = '${key.id}' begin select raise(ignore); end`,
      );
    }
    try {
      const response = await client.post('/api/auth/api-key/update', { keyId: key.id, name: 'renamed' });
      expect(pick(response)).toMatchObject(error(409, 'FAILED_TO_UPDATE_API_KEY', 'Failed to update API key'));
    } finally {
      await db.raw('drop trigger till_test_drop_write' + (testDialect === 'postgres' ? ' on api_keys' : ''));
    }
  });

  it('deletes a key once; the second time it is not found', async () => {
    const owner = await keyOwner(daemon());
    const other = await keyOwner(daemon());
    const { json: key } = await owner.client.post('/api/auth/api-key/create', {});
    expect(pick(await other.client.post('/api/auth/api-key/delete', { keyId: key.id }))).toMatchObject(
      error(404, 'KEY_NOT_FOUND'),
    );
    expect(pick(await anonymous().post('/api/auth/api-key/delete', { keyId: key.id }))).toMatchObject(
      error(401, 'UNAUTHORIZED'),
    );
    expect(pick(await owner.client.post('/api/auth/api-key/delete', { keyId: key.id }))).toEqual({
      status: 200,
      json: { success: true },
    });
    expect(pick(await owner.client.post('/api/auth/api-key/delete', { keyId: key.id }))).toMatchObject(
      error(404, 'KEY_NOT_FOUND', 'API Key not found'),
    );
    expect((await owner.client.get('/api/auth/api-key/list')).json.total).toBe(0);
  });
});

describe('/api/admin/api-keys: the fields Better Auth keeps server-side', () => {
  it('creates keys with limits, refill and permissions for any user, with the admin token only', async () => {
    const { user } = await keyOwner(daemon());
    const created = await adminKey(daemon(), {
      userId: user.id,
      name: 'metered',
      refillAmount: 100,
      refillInterval: 3_600_000,
      rateLimitTimeWindow: 60_000,
      rateLimitMax: 10,
      permissions: { files: ['read'] },
    });
    expect(created).toMatchObject({
      referenceId: user.id,
      remaining: 100,
      refillAmount: 100,
      refillInterval: 3_600_000,
      rateLimitEnabled: true,
      rateLimitTimeWindow: 60_000,
      rateLimitMax: 10,
      permissions: { files: ['read'] },
      key: expect.stringMatching(/^[A-Za-z]{64}$/),
    });
    const unauthorized = await new TestClient(daemon().url).post('/api/admin/api-keys/create', { userId: user.id });
    expect(unauthorized.status).toBe(401);
    expect(pick(await adminPost(daemon(), '/api-keys/create', { userId: 'nobody' }))).toMatchObject(
      error(404, 'USER_NOT_FOUND'),
    );
    expect(pick(await adminPost(daemon(), '/api-keys/create', {}))).toMatchObject(error(400, 'VALIDATION_ERROR'));
  });

  it('needs refill amount and interval together', async () => {
    const { user } = await keyOwner(daemon());
    const amountOnly = error(
      400,
      'REFILL_AMOUNT_AND_INTERVAL_REQUIRED',
      'refillAmount is required when refillInterval is provided',
    );
    const intervalOnly = error(
      400,
      'REFILL_INTERVAL_AND_AMOUNT_REQUIRED',
      'refillInterval is required when refillAmount is provided',
    );
    expect(pick(await adminPost(daemon(), '/api-keys/create', { userId: user.id, refillAmount: 5 }))).toMatchObject(
      amountOnly,
    );
    expect(
      pick(await adminPost(daemon(), '/api-keys/create', { userId: user.id, refillInterval: 1000 })),
    ).toMatchObject(intervalOnly);
    const key = await adminKey(daemon(), { userId: user.id });
    expect(pick(await adminPost(daemon(), '/api-keys/update', { keyId: key.id, refillAmount: 5 }))).toMatchObject(
      amountOnly,
    );
    expect(pick(await adminPost(daemon(), '/api-keys/update', { keyId: key.id, refillInterval: 1000 }))).toMatchObject(
      intervalOnly,
    );
  });

  it('updates server-only fields, and clears them with null', async () => {
    const { user } = await keyOwner(daemon());
    const key = await adminKey(daemon(), { userId: user.id });
    const limited = await adminPost(daemon(), '/api-keys/update', {
      keyId: key.id,
      remaining: 3,
      rateLimitEnabled: true,
      rateLimitTimeWindow: 1000,
      rateLimitMax: 1,
    });
    expect(limited.json).toMatchObject({
      remaining: 3,
      rateLimitEnabled: true,
      rateLimitTimeWindow: 1000,
      rateLimitMax: 1,
    });
    const cleared = await adminPost(daemon(), '/api-keys/update', {
      keyId: key.id,
      remaining: null,
      rateLimitEnabled: false,
    });
    expect(cleared.json).toMatchObject({ remaining: null, rateLimitEnabled: false });
    expect(pick(await adminPost(daemon(), '/api-keys/update', { keyId: 'missing', name: 'x' }))).toMatchObject(
      error(404, 'KEY_NOT_FOUND'),
    );
    expect(pick(await adminPost(daemon(), '/api-keys/update', { keyId: key.id }))).toMatchObject(
      error(400, 'NO_VALUES_TO_UPDATE'),
    );
  });
});
