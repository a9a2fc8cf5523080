import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashApiKey } from '../../src/core/api-keys/keys.js';
import { apiKeyInvalidation } from '../../src/core/api-keys/verify.js';
import { adminKey, adminPost } from '../helpers/api-keys.js';
import { useTestDaemon } from '../helpers/daemon.js';
import type { TestClient } from '../helpers/http.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

// get, update and delete of organization-owned keys (contract §7): the key names its organization, so the caller
// must be a member of it whose role allows apiKey:read/update/delete. The default roles grant no apiKey action;
// only the owner (creator role) is allowed, as for create and list.

const daemon = useTestDaemon();

afterEach(() => vi.restoreAllMocks());

const error = (status: number, code: string) => ({ status, code });
const pick = (response: { status: number; json: { code?: string } }) => ({
  status: response.status,
  code: response.json?.code,
});

/** An organization with one owner and one key it owns. */
async function organizationKey() {
  const owner = await signedInUser(daemon());
  const org = await createOrganization(owner.client);
  const created = await owner.client.post('/api/auth/api-key/create', { organizationId: org.id, name: 'deploy' });
  expect(created.status, created.text).toBe(200);
  return { owner, org, key: created.json as { id: string; key: string } };
}

const actions = {
  get: (client: TestClient, keyId: string) => client.get('/api/auth/api-key/get', { query: { id: keyId } }),
  update: (client: TestClient, keyId: string) => client.post('/api/auth/api-key/update', { keyId, name: 'renamed' }),
  delete: (client: TestClient, keyId: string) => client.post('/api/auth/api-key/delete', { keyId }),
};

describe('get, update and delete of organization-owned API keys', () => {
  it('lets the owner read, update and delete the key, announcing and forgetting each change like user keys', async () => {
    const { owner, org, key } = await organizationKey();
    const got = await actions.get(owner.client, key.id);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({ id: key.id, name: 'deploy', referenceId: org.id });
    expect(got.json.key).toBeUndefined();

    const announce = vi.spyOn(daemon().core.bus, 'announce');
    const forgetHere = vi.spyOn(daemon().core.bus, 'forgetHere');
    const invalidation = [apiKeyInvalidation(hashApiKey(key.key))];

    const updated = await actions.update(owner.client, key.id);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ id: key.id, name: 'renamed', referenceId: org.id });
    expect(announce).toHaveBeenCalledWith(expect.anything(), invalidation);
    expect(forgetHere).toHaveBeenCalledWith(invalidation);
    expect(pick(await owner.client.post('/api/auth/api-key/update', { keyId: key.id }))).toEqual(
      error(400, 'NO_VALUES_TO_UPDATE'),
    );

    announce.mockClear();
    forgetHere.mockClear();
    const deleted = await actions.delete(owner.client, key.id);
    expect([deleted.status, deleted.json]).toEqual([200, { success: true }]);
    expect(announce).toHaveBeenCalledWith(expect.anything(), invalidation);
    expect(forgetHere).toHaveBeenCalledWith(invalidation);
    for (const act of Object.values(actions))
      expect(pick(await act(owner.client, key.id))).toEqual(error(404, 'KEY_NOT_FOUND'));
  });

  for (const role of ['admin', 'member']) {
    for (const [name, act] of Object.entries(actions)) {
      it(`refuses ${name} to a member with the ${role} role (no apiKey permission)`, async () => {
        const { org, key, owner } = await organizationKey();
        const other = await signedInUser(daemon());
        await addMember(daemon(), org.id, other.user.id, role);
        const refused = await act(other.client, key.id);
        expect(refused.status).toBe(403);
        expect(refused.json).toEqual({
          code: 'INSUFFICIENT_API_KEY_PERMISSIONS',
          message: 'You do not have permission to perform this action on organization API keys.',
        });
        // Untouched: still there, under its first name.
        expect((await actions.get(owner.client, key.id)).json).toMatchObject({ id: key.id, name: 'deploy' });
      });
    }
  }

  for (const [name, act] of Object.entries(actions)) {
    it(`refuses ${name} to someone outside the key's organization`, async () => {
      const { key, owner } = await organizationKey();
      // The owner of another organization is no member of this one.
      const stranger = await signedInUser(daemon());
      await createOrganization(stranger.client);
      const refused = await act(stranger.client, key.id);
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        code: 'USER_NOT_MEMBER_OF_ORGANIZATION',
        message: 'You are not a member of the organization that owns this API key.',
      });
      expect((await actions.get(owner.client, key.id)).json).toMatchObject({ id: key.id, name: 'deploy' });
    });

    it(`answers ${name} of a missing key, or another user's key, 404 KEY_NOT_FOUND`, async () => {
      const { owner, org } = await organizationKey();
      expect(pick(await act(owner.client, 'no-such-key'))).toEqual(error(404, 'KEY_NOT_FOUND'));
      // User keys keep their rule: only their user reaches them, whatever organizations they share.
      const colleague = await signedInUser(daemon());
      await addMember(daemon(), org.id, colleague.user.id, 'admin');
      const personal = await owner.client.post('/api/auth/api-key/create', { name: 'personal' });
      expect(pick(await act(colleague.client, personal.json.id))).toEqual(error(404, 'KEY_NOT_FOUND'));
      expect((await actions.get(owner.client, personal.json.id)).json).toMatchObject({ name: 'personal' });
    });
  }
});

describe('/api/admin/api-keys/create for an organization', () => {
  it('creates a key the organization owns, which its owner then manages, and refuses unknown organizations', async () => {
    const owner = await signedInUser(daemon());
    const org = await createOrganization(owner.client);
    const created = await adminKey(daemon(), { organizationId: org.id, name: 'ci', remaining: 5 });
    expect(created).toMatchObject({ name: 'ci', referenceId: org.id, remaining: 5, key: expect.any(String) });
    const listed = await owner.client.get('/api/auth/api-key/list', { query: { organizationId: org.id } });
    expect(listed.json.apiKeys.map((key: { id: string }) => key.id)).toEqual([created.id]);
    expect((await owner.client.get('/api/auth/api-key/list')).json.apiKeys).toEqual([]);
    expect((await actions.get(owner.client, created.id)).json).toMatchObject({ id: created.id, referenceId: org.id });

    const unknown = await adminPost(daemon(), '/api-keys/create', { organizationId: 'no-such-org' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'ORGANIZATION_NOT_FOUND', message: 'Organization not found' });
    // A key has one owner: naming both, or neither, is refused.
    const both = await adminPost(daemon(), '/api-keys/create', { organizationId: org.id, userId: owner.user.id });
    expect(pick(both)).toEqual(error(400, 'VALIDATION_ERROR'));
    expect(pick(await adminPost(daemon(), '/api-keys/create', { name: 'orphan' }))).toEqual(
      error(400, 'VALIDATION_ERROR'),
    );
  });
});
