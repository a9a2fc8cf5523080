import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, SECOND } from '../../src/core/kernel/clock.js';
import { adminKey, keyClient, keyOwner } from '../helpers/api-keys.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { TestClient } from '../helpers/http.js';

// Requests authenticated by API key (x-api-key, or a key in Authorization: Bearer): the mock session, every
// error a key can meet, and usage limits, refill and rate limits moved through with the clock.

const daemon = useTestDaemon();
const getSession = (client: TestClient) => client.get('/api/auth/get-session');
const failure = (status: number, code: string, message: string) => ({ status, json: { code, message } });
const pick = (response: { status: number; json: unknown }) => ({ status: response.status, json: response.json });

async function userKey(body: Record<string, unknown> = {}) {
  const owner = await keyOwner(daemon());
  const { json: key } = await owner.client.post('/api/auth/api-key/create', body);
  return { ...owner, key: key as { id: string; key: string; expiresAt: string | null } };
}

describe('authenticating with an API key', () => {
  it('get-session answers a mock session for the key and its user, through x-api-key or Bearer', async () => {
    const { key, user } = await userKey();
    const now = daemon().clock.now();
    for (const how of ['x-api-key', 'bearer'] as const) {
      const response = await getSession(keyClient(daemon(), key.key, how));
      expect(response.status, response.text).toBe(200);
      expect(response.json).toEqual({
        session: {
          id: key.id,
          token: key.key,
          userId: user.id,
          expiresAt: new Date(now.getTime() + 7 * DAY).toISOString(),
          createdAt: now.toISOString(),
          updatedAt: now.toISOString(),
          ipAddress: '',
          userAgent: '',
          activeOrganizationId: null,
        },
        user,
      });
    }
    const expiring = await userKey({ expiresIn: 10 * 86400 });
    expect((await getSession(keyClient(daemon(), expiring.key.key))).json.session.expiresAt).toBe(
      expiring.key.expiresAt,
    );
  });

  it('stands for its user on other routes', async () => {
    const { key } = await userKey();
    const client = keyClient(daemon(), key.key, 'bearer');
    expect((await client.post('/api/auth/update-user', { name: 'Renamed by CI' })).json).toEqual({ status: true });
    expect((await getSession(client)).json.user.name).toBe('Renamed by CI');
    const list = await client.get('/api/auth/api-key/list');
    expect(list.json.apiKeys.map((k: { id: string }) => k.id)).toEqual([key.id]);
  });

  it('leaves session tokens in Bearer alone', async () => {
    const { token, user } = await keyOwner(daemon());
    const response = await new TestClient(daemon().url, { headers: { authorization: `Bearer ${token}` } }).get(
      '/api/auth/get-session',
    );
    expect(response.json.user.id).toBe(user.id);
  });

  it('refuses unknown keys, and values too short to be one', async () => {
    const unknown = 'A'.repeat(64);
    const invalid = failure(401, 'INVALID_API_KEY', 'Invalid API key.');
    expect(pick(await getSession(keyClient(daemon(), unknown)))).toEqual(invalid);
    expect(pick(await getSession(keyClient(daemon(), unknown, 'bearer')))).toEqual(invalid);
    expect(pick(await keyClient(daemon(), unknown).post('/api/auth/update-user', { name: 'x' }))).toEqual(invalid);
    expect(pick(await getSession(keyClient(daemon(), 'short')))).toEqual(
      failure(403, 'INVALID_API_KEY', 'Invalid API key.'),
    );
  });

  it('refuses a disabled key at once, and takes it back when enabled again', async () => {
    const { key, client } = await userKey();
    const byKey = keyClient(daemon(), key.key);
    expect((await getSession(byKey)).status).toBe(200);
    await client.post('/api/auth/api-key/update', { keyId: key.id, enabled: false });
    expect(pick(await getSession(byKey))).toEqual(failure(401, 'KEY_DISABLED', 'API Key is disabled'));
    await client.post('/api/auth/api-key/update', { keyId: key.id, enabled: true });
    expect((await getSession(byKey)).status).toBe(200);
  });

  it('refuses an expired key and deletes it', async () => {
    const { key, client } = await userKey({ expiresIn: 86400 });
    const byKey = keyClient(daemon(), key.key);
    expect((await getSession(byKey)).status).toBe(200);
    daemon().clock.advance(DAY);
    expect(pick(await getSession(byKey))).toEqual(failure(401, 'KEY_EXPIRED', 'API Key has expired'));
    expect((await client.get('/api/auth/api-key/list')).json.total).toBe(0);
    expect(pick(await getSession(byKey))).toEqual(failure(401, 'INVALID_API_KEY', 'Invalid API key.'));
  });

  it('refuses the key of a deleted user, and the hourly sweep removes it', async () => {
    const { key, user } = await userKey({ name: 'orphan' });
    const expired = await userKey({ expiresIn: 86400 });
    await daemon().core.db('users').where({ id: user.id }).del();
    const refused = await keyClient(daemon(), key.key).get('/api/auth/get-session', {
      query: { disableCookieCache: 'true' },
    });
    expect(pick(refused)).toEqual(
      failure(401, 'INVALID_REFERENCE_ID_FROM_API_KEY', 'The reference id from the API key is invalid.'),
    );
    daemon().clock.advance(DAY);
    expect(await daemon().core.apiKeys.purgeExpired()).toBeGreaterThanOrEqual(2);
    expect(await daemon().core.db('api_keys').whereIn('id', [key.id, expired.key.id])).toEqual([]);
  });

  it('refuses a deleted key on the very next request', async () => {
    const { key, client } = await userKey();
    const byKey = keyClient(daemon(), key.key);
    expect((await getSession(byKey)).status).toBe(200);
    await client.post('/api/auth/api-key/delete', { keyId: key.id });
    expect(pick(await getSession(byKey))).toEqual(failure(401, 'INVALID_API_KEY', 'Invalid API key.'));
  });
});

describe('usage limits and rate limits', () => {
  it('spends remaining uses, then answers 429 "API Key has reached its usage limit"', async () => {
    const { user, client } = await keyOwner(daemon());
    const key = await adminKey(daemon(), { userId: user.id, remaining: 2 });
    const byKey = keyClient(daemon(), key.key);
    expect((await getSession(byKey)).status).toBe(200);
    expect((await byKey.get('/api/auth/api-key/list')).status).toBe(200);
    const exhausted = failure(429, 'USAGE_EXCEEDED', 'API Key has reached its usage limit');
    expect(pick(await getSession(byKey))).toEqual(exhausted);
    expect(pick(await getSession(byKey))).toEqual(exhausted);
    // Kept (Better Auth deletes it), so the operator can give it more uses.
    expect((await client.get('/api/auth/api-key/get', { query: { id: key.id } })).json).toMatchObject({
      remaining: 0,
      requestCount: 2,
    });
  });

  it('refills remaining once the interval has passed since the last refill', async () => {
    const { user, client } = await keyOwner(daemon());
    const key = await adminKey(daemon(), { userId: user.id, refillAmount: 2, refillInterval: HOUR });
    const byKey = keyClient(daemon(), key.key);
    const uses = async (n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await getSession(byKey)).status);
      return statuses;
    };
    expect(await uses(3)).toEqual([200, 200, 429]);
    daemon().clock.advance(HOUR);
    expect(await uses(1)).toEqual([429]);
    daemon().clock.advance(1);
    expect(await uses(3)).toEqual([200, 200, 429]);
    const stored = (await client.get('/api/auth/api-key/get', { query: { id: key.id } })).json;
    expect(stored).toMatchObject({ remaining: 0, lastRefillAt: daemon().clock.now().toISOString() });
  });

  it('counts requests in a fixed window and answers 429 "Rate limit exceeded." once it is full', async () => {
    const { user } = await keyOwner(daemon());
    const key = await adminKey(daemon(), { userId: user.id, rateLimitTimeWindow: MINUTE, rateLimitMax: 2 });
    const byKey = keyClient(daemon(), key.key);
    expect((await getSession(byKey)).status).toBe(200);
    daemon().clock.advance(30 * SECOND);
    expect((await getSession(byKey)).status).toBe(200);
    const limited = await getSession(byKey);
    expect(pick(limited)).toEqual(failure(429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded.'));
    expect(limited.headers['x-retry-after']).toBe('30');
    daemon().clock.advance(30 * SECOND);
    expect((await getSession(byKey)).status).toBe(200);
    expect((await getSession(byKey)).status).toBe(200);
    expect((await getSession(byKey)).status).toBe(429);
  });

  it('never overspends under concurrent use', async () => {
    const { user } = await keyOwner(daemon());
    const key = await adminKey(daemon(), { userId: user.id, remaining: 5 });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => getSession(keyClient(daemon(), key.key)).then((r) => r.status)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it('writes lastRequest and requestCount of unlimited keys at most once a minute, not per request', async () => {
    const { key, client } = await userKey();
    const byKey = keyClient(daemon(), key.key);
    const first = daemon().clock.now().toISOString();
    for (let i = 0; i < 5; i++) {
      expect((await getSession(byKey)).status).toBe(200);
      daemon().clock.advance(SECOND);
    }
    const stored = async () => (await client.get('/api/auth/api-key/get', { query: { id: key.id } })).json;
    expect(await stored()).toMatchObject({ requestCount: 1, lastRequest: first });
    daemon().clock.advance(MINUTE);
    const later = daemon().clock.now().toISOString();
    await getSession(byKey);
    expect(await stored()).toMatchObject({ requestCount: 6, lastRequest: later });
    await getSession(byKey);
    await daemon().core.apiKeys.flushUsage();
    expect(await stored()).toMatchObject({ requestCount: 7 });
  });
});
