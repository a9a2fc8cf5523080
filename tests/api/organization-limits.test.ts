import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { createOrganization, signedInUser } from '../helpers/organizations.js';

describe('organization limit', () => {
  const daemon = useTestDaemon({ organizations: { allowCreate: true, limit: 1, teams: false, allowRemovingAllTeams: false } });
  it('refuses a create past TILL_ORG_LIMIT', async () => {
    const { client } = await signedInUser(daemon());
    await createOrganization(client);
    const refused = await client.post('/api/auth/organization/create', { name: 'Two', slug: `two-${Date.now()}` });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ code: 'YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS', message: 'You have reached the maximum number of organizations' });
  });
});

describe('organization creation disabled', () => {
  const daemon = useTestDaemon({ organizations: { allowCreate: false, limit: null, teams: false, allowRemovingAllTeams: false } });
  it('refuses every create', async () => {
    const { client } = await signedInUser(daemon());
    const refused = await client.post('/api/auth/organization/create', { name: 'One', slug: 'one' });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION');
  });
});
