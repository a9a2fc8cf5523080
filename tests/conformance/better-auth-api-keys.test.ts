import { createAuthClient } from 'better-auth/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';

// The api-key routes driven by Better Auth's own client (1.7.25). Its apiKeyClient plugin lives in
// @better-auth/api-key, which Till does not install, so the routes are called through the client's $fetch: the
// same transport, error parsing and date reviving the plugin's methods use.

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(async () => {
  await daemon?.stop();
});

/** A client that keeps cookies and sends Origin, as a browser would (see better-auth-client.test.ts). */
function browserClient(extraHeaders: Record<string, string> = {}) {
  const cookies = new Map<string, string>();
  return createAuthClient({
    baseURL: daemon.url,
    fetchOptions: {
      customFetchImpl: async (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (cookies.size > 0) headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
        headers.set('origin', daemon.url);
        for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
        const response = await fetch(input, { ...init, headers });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(';');
          const eq = pair!.indexOf('=');
          cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
        }
        return response;
      },
    },
  });
}

type Key = { id: string; key?: string; name: string | null; enabled: boolean; referenceId: string };

describe('Better Auth client: api-key routes', () => {
  it('creates, lists, gets, updates and deletes keys; a key signs the client in through x-api-key', async () => {
    const client = browserClient();
    const email = uniqueEmail('ba-keys');
    const signUp = await client.signUp.email({ name: 'Ada', email, password: 'correct horse battery' });
    expect(signUp.error).toBeNull();
    const userId = signUp.data!.user.id;

    const created = await client.$fetch<Key>('/api-key/create', {
      method: 'POST',
      body: { name: 'conformance', expiresIn: 7 * 86400 },
    });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      name: 'conformance',
      enabled: true,
      referenceId: userId,
      key: expect.stringMatching(/^[A-Za-z]{64}$/),
    });
    const { id, key } = created.data!;

    const list = await client.$fetch<{ apiKeys: Key[]; total: number }>('/api-key/list', { method: 'GET' });
    expect(list.error).toBeNull();
    expect(list.data!.total).toBe(1);
    expect(list.data!.apiKeys[0]).toMatchObject({ id, name: 'conformance' });
    expect(list.data!.apiKeys[0]).not.toHaveProperty('key');

    const got = await client.$fetch<Key>('/api-key/get', { method: 'GET', query: { id } });
    expect(got.data).toMatchObject({ id, name: 'conformance' });

    const byKey = browserClient({ 'x-api-key': key! });
    const session = await byKey.getSession();
    expect(session.error).toBeNull();
    expect(session.data).toMatchObject({ session: { id, token: key, userId }, user: { id: userId, email } });

    const disabled = await client.$fetch<Key>('/api-key/update', {
      method: 'POST',
      body: { keyId: id, enabled: false },
    });
    expect(disabled.data).toMatchObject({ id, enabled: false });
    const refused = await byKey.getSession();
    expect(refused.error).toMatchObject({ status: 401, code: 'KEY_DISABLED', message: 'API Key is disabled' });

    const serverOnly = await client.$fetch('/api-key/create', { method: 'POST', body: { remaining: 5 } });
    expect(serverOnly.error).toMatchObject({ status: 400, code: 'SERVER_ONLY_PROPERTY' });

    const deleted = await client.$fetch('/api-key/delete', { method: 'POST', body: { keyId: id } });
    expect(deleted.data).toEqual({ success: true });
    const again = await client.$fetch('/api-key/delete', { method: 'POST', body: { keyId: id } });
    expect(again.error).toMatchObject({ status: 404, code: 'KEY_NOT_FOUND', message: 'API Key not found' });
  });
});
