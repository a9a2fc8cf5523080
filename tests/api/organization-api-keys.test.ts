import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';

const daemon = useTestDaemon();

describe('organization-owned API keys', () => {
  it('lets an owner create and list the organization’s keys, refuses other roles, and deletes them with it', async () => {
    const owner = await signedInUser(daemon());
    const org = await createOrganization(owner.client);
    const created = await owner.client.post('/api/auth/api-key/create', { organizationId: org.id, name: 'deploy' });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ name: 'deploy', referenceId: org.id, key: expect.any(String) });
    await owner.client.post('/api/auth/api-key/create', { name: 'personal' });

    const listed = await owner.client.get('/api/auth/api-key/list', { query: { organizationId: org.id } });
    expect(listed.status).toBe(200);
    expect(listed.json.apiKeys.map((key: { name: string }) => key.name)).toEqual(['deploy']);
    expect(listed.json.total).toBe(1);
    expect(
      (await owner.client.get('/api/auth/api-key/list')).json.apiKeys.map((key: { name: string }) => key.name),
    ).toEqual(['personal']);

    // The default roles name no apiKey resource; only the creator role may do everything.
    for (const role of ['admin', 'member']) {
      const other = await signedInUser(daemon());
      await addMember(daemon(), org.id, other.user.id, role);
      const refused = await other.client.post('/api/auth/api-key/create', { organizationId: org.id });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        code: 'INSUFFICIENT_API_KEY_PERMISSIONS',
        message: 'You do not have permission to perform this action on organization API keys.',
      });
      expect((await other.client.get('/api/auth/api-key/list', { query: { organizationId: org.id } })).json.code).toBe(
        'INSUFFICIENT_API_KEY_PERMISSIONS',
      );
    }

    // An organization's key does not stand for a user.
    const asKey = await owner.client.get('/api/auth/get-session', {
      headers: { 'x-api-key': created.json.key, cookie: '' },
    });
    expect([asKey.status, asKey.json.code]).toEqual([401, 'INVALID_REFERENCE_ID_FROM_API_KEY']);

    await owner.client.post('/api/auth/organization/delete', { organizationId: org.id });
    const [{ n }] = await daemon().core.db('api_keys').where({ reference_id: org.id }).count({ n: '*' });
    expect(Number(n)).toBe(0);
  });
});
