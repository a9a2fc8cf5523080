import { adminToken } from '../../src/core/kernel/crypto.js';
import { TEST_SECRET, type TestDaemon } from './daemon.js';
import { TestClient, signUpUser } from './http.js';

/** A signed-up user whose client holds the session cookie, and a client that presents no credentials at all. */
export async function keyOwner(daemon: TestDaemon, name = 'Key Owner') {
  const client = new TestClient(daemon.url, { origin: daemon.url });
  const { user, token, email } = await signUpUser(client, { name });
  return { client, user, token, email };
}

/** A client that authenticates with an API key in x-api-key (or, with `bearer`, in Authorization). */
export function keyClient(daemon: TestDaemon, key: string, how: 'x-api-key' | 'bearer' = 'x-api-key'): TestClient {
  return new TestClient(daemon.url, {
    headers: how === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
  });
}

/** The operator's API, with the admin token the test secret derives. */
export function adminPost(daemon: TestDaemon, path: string, body: unknown) {
  return new TestClient(daemon.url, { headers: { authorization: `Bearer ${adminToken(TEST_SECRET)}` } }).post(
    `/api/admin${path}`,
    body,
  );
}

/** Creates a key through the admin API (which may set limits) and returns the created object, key included. */
export async function adminKey(daemon: TestDaemon, body: Record<string, unknown>) {
  const response = await adminPost(daemon, '/api-keys/create', body);
  if (response.status !== 200) throw new Error(`admin create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; key: string } & Record<string, unknown>;
}
