import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/core/kernel/clock.js';
import { adminKey, adminPost, keyClient, keyOwner } from '../helpers/api-keys.js';
import { startTestDaemon, useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import type { TestClient } from '../helpers/http.js';
import { eventually } from '../helpers/eventually.js';

// Verified keys are kept in memory like sessions. Every change Till makes to a key or its user must be visible
// on the very next request, on this daemon, and on every daemon sharing the PostgreSQL database.

const daemon = useTestDaemon();
const status = async (client: TestClient, query?: Record<string, string>) => {
  const response = await client.get('/api/auth/get-session', { query });
  return response.status === 200 ? 200 : `${response.status} ${response.json?.code}`;
};

async function cachedKey(on: TestDaemon = daemon()) {
  const owner = await keyOwner(on);
  const { json: key } = await owner.client.post('/api/auth/api-key/create', {});
  const byKey = keyClient(on, key.key);
  expect(await status(byKey)).toBe(200);
  return { ...owner, key, byKey };
}

describe('in-memory API key cache', () => {
  it('answers get-session from memory; other routes and disableCookieCache read the database', async () => {
    const before = daemon().core.apiKeys.cacheSize();
    const { key, byKey } = await cachedKey();
    expect(daemon().core.apiKeys.cacheSize()).toBe(before + 1);
    // Removed behind Till's back: still served from memory...
    await daemon().core.db('api_keys').where({ id: key.id }).del();
    expect(await status(byKey)).toBe(200);
    // ...but not where the route needs the database's word, nor after a minute.
    expect(await status(byKey, { disableCookieCache: 'true' })).toBe('401 INVALID_API_KEY');
    expect((await byKey.get('/api/auth/api-key/list')).status).toBe(401);
  });

  it('re-reads an entry once it is a minute old', async () => {
    const { key, byKey } = await cachedKey();
    await daemon().core.db('api_keys').where({ id: key.id }).del();
    daemon().clock.advance(60 * SECOND);
    expect(await status(byKey)).toBe('401 INVALID_API_KEY');
  });

  it("applies the operator's changes on the next request", async () => {
    const { key, byKey } = await cachedKey();
    await adminPost(daemon(), '/api-keys/update', { keyId: key.id, remaining: 1 });
    expect(await status(byKey)).toBe(200);
    expect(await status(byKey)).toBe('429 USAGE_EXCEEDED');
    await adminPost(daemon(), '/api-keys/update', { keyId: key.id, remaining: null, enabled: false });
    expect(await status(byKey)).toBe('401 KEY_DISABLED');
  });

  it("shows the user's profile changes at once", async () => {
    const { client, byKey } = await cachedKey();
    await client.post('/api/auth/update-user', { name: 'Changed' });
    expect((await byKey.get('/api/auth/get-session')).json.user.name).toBe('Changed');
  });

  it('forgets a key deleted or disabled by its owner', async () => {
    const first = await cachedKey();
    await first.client.post('/api/auth/api-key/update', { keyId: first.key.id, enabled: false });
    expect(await status(first.byKey)).toBe('401 KEY_DISABLED');
    const second = await cachedKey();
    await second.client.post('/api/auth/api-key/delete', { keyId: second.key.id });
    expect(await status(second.byKey)).toBe('401 INVALID_API_KEY');
  });
});

// Only PostgreSQL lets several daemons share a database; a SQLite run reports this suite as skipped.
describe.runIf(testDialect === 'postgres')('several daemons, one database', () => {
  it('PostgreSQL: a change on one daemon reaches the keys cached by another', async () => {
    const database = await createTestDatabase();
    const [a, b] = await Promise.all([0, 1].map(() => startTestDaemon({ databaseUrl: database.url })));
    try {
      const { key, byKey: onA, client } = await cachedKey(a!);
      const onB = keyClient(b!, key.key);
      expect(await status(onB)).toBe(200);
      const ownerOnB = keyClient(b!, key.key, 'bearer');
      await ownerOnB.post('/api/auth/update-user', { name: 'Renamed on B' });
      expect(
        await eventually(async () => (await onA.get('/api/auth/get-session')).json?.user?.name, 'Renamed on B'),
      ).toBe('Renamed on B');
      await adminPost(b!, '/api-keys/update', { keyId: key.id, enabled: false });
      expect(await eventually(() => status(onA), '401 KEY_DISABLED')).toBe('401 KEY_DISABLED');
      await adminPost(b!, '/api-keys/update', { keyId: key.id, enabled: true });
      expect(await eventually(() => status(onA), 200)).toBe(200);
      await client.post('/api/auth/api-key/delete', { keyId: key.id });
      expect(await status(onA)).toBe('401 INVALID_API_KEY');
      expect(await eventually(() => status(onB), '401 INVALID_API_KEY')).toBe('401 INVALID_API_KEY');
    } finally {
      await Promise.all([a, b].map((d) => d!.close()));
      await database.drop();
    }
  });

  it('PostgreSQL: remaining uses are spent exactly across daemons', async () => {
    const database = await createTestDatabase();
    const [a, b] = await Promise.all([0, 1].map(() => startTestDaemon({ databaseUrl: database.url })));
    try {
      const { user } = await keyOwner(a!);
      const key = await adminKey(a!, { userId: user.id, remaining: 6 });
      const uses = Array.from({ length: 20 }, (_, i) => status(keyClient(i % 2 ? a! : b!, key.key)));
      const statuses = await Promise.all(uses);
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.filter((s) => s === '429 USAGE_EXCEEDED')).toHaveLength(14);
    } finally {
      await Promise.all([a, b].map((d) => d!.close()));
      await database.drop();
    }
  });
});
