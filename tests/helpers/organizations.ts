import { newAuthId } from '../../src/core/kernel/ids.js';
import { membersRepository } from '../../src/core/organizations/repository.js';
import type { TestDaemon } from './daemon.js';
import { TestClient, signUpUser } from './http.js';

/** A signed-in user with their own cookie jar. */
export async function signedInUser(daemon: TestDaemon, name = 'Org User') {
  const client = new TestClient(daemon.url, { origin: daemon.url });
  const signedUp = await signUpUser(client, { name });
  return { client, ...signedUp };
}

export async function createOrganization(client: TestClient, fields: { name?: string; slug?: string } = {}) {
  const slug = fields.slug ?? `org-${Math.random().toString(36).slice(2, 10)}`;
  const response = await client.post('/api/auth/organization/create', { name: fields.name ?? 'Acme', slug });
  if (response.status !== 200) throw new Error(`create failed: ${response.status} ${response.text}`);
  return response.json as { id: string; slug: string; members: Array<{ id: string; userId: string; role: string }> };
}

/** Better Auth's server-only addMember: puts a user into an organization without an invitation. */
export async function addMember(
  daemon: TestDaemon,
  organizationId: string,
  userId: string,
  role: string,
): Promise<string> {
  const id = newAuthId();
  await membersRepository(daemon.core.db).insert({ id, organizationId, userId, role, createdAt: daemon.clock.now() });
  return id;
}
