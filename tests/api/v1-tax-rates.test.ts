import { describe, expect, it } from 'vitest';
import { taxBasisPointsFor } from '../../src/core/tax/service.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('/v1/tax-rates', () => {
  it('creates, lists, updates and deletes rates; the state’s rate wins over the country’s', async () => {
    const merchant = await createMerchant(daemon());
    const germany = await merchant.api.post('/v1/tax-rates/', { country: 'DE', basis_points: 1900, name: 'MwSt' });
    expect(germany.status).toBe(201);
    expect(germany.json).toMatchObject({
      country: 'DE',
      state: null,
      basis_points: 1900,
      name: 'MwSt',
      organization_id: merchant.organization.id,
      modified_at: null,
    });
    await merchant.api.post('/v1/tax-rates/', { country: 'US', basis_points: 0, name: 'US' });
    const california = await merchant.api.post('/v1/tax-rates/', {
      country: 'US',
      state: 'CA',
      basis_points: 725,
      name: 'California',
    });
    expect(california.status).toBe(201);

    const db = daemon().core.db;
    expect(await taxBasisPointsFor(db, merchant.organization.id, { country: 'DE' })).toBe(1900);
    expect(await taxBasisPointsFor(db, merchant.organization.id, { country: 'US', state: 'US-CA' })).toBe(725);
    expect(await taxBasisPointsFor(db, merchant.organization.id, { country: 'US', state: 'NY' })).toBe(0);
    expect(await taxBasisPointsFor(db, merchant.organization.id, { country: 'FR' })).toBe(0);
    expect(await taxBasisPointsFor(db, merchant.organization.id, null)).toBe(0);

    const list = await merchant.api.get('/v1/tax-rates/', { query: { country: 'US', sorting: 'basis_points' } });
    expect(list.json.items.map((rate: { name: string }) => rate.name)).toEqual(['US', 'California']);
    const updated = await merchant.api.call('PATCH', `/v1/tax-rates/${germany.json.id}`, {
      body: { basis_points: 700 },
    });
    expect(updated.json).toMatchObject({ basis_points: 700, name: 'MwSt' });
    expect(updated.json.modified_at).not.toBeNull();
    expect((await merchant.api.call('DELETE', `/v1/tax-rates/${germany.json.id}`)).status).toBe(204);
    expect((await merchant.api.get(`/v1/tax-rates/${germany.json.id}`)).status).toBe(404);
  });

  it('refuses a second rate for the same country and state, and bad input, with 422 at the field', async () => {
    const merchant = await createMerchant(daemon());
    expect(
      (await merchant.api.post('/v1/tax-rates/', { country: 'SE', basis_points: 2500, name: 'Moms' })).status,
    ).toBe(201);
    const duplicate = await merchant.api.post('/v1/tax-rates/', { country: 'SE', basis_points: 1200, name: 'Again' });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.detail[0].loc).toEqual(['body', 'country']);
    for (const [body, loc] of [
      [{ country: 'se', basis_points: 1, name: 'x' }, ['body', 'country']],
      [{ country: 'SE', basis_points: -1, name: 'x' }, ['body', 'basis_points']],
      [{ country: 'SE', basis_points: 10_001, name: 'x' }, ['body', 'basis_points']],
      [{ country: 'SE', basis_points: 1.5, name: 'x' }, ['body', 'basis_points']],
      [{ country: 'SE', basis_points: 1, name: 'x'.repeat(65) }, ['body', 'name']],
      [{ country: 'US', state: 'California', basis_points: 1, name: 'x' }, ['body', 'state']],
    ] as const) {
      const response = await merchant.api.post('/v1/tax-rates/', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toEqual(loc);
    }
  });

  it('hides another organization’s rates and lets members only read', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const rate = await b.api.post('/v1/tax-rates/', { country: 'NL', basis_points: 2100, name: 'BTW' });
    expect((await a.api.get(`/v1/tax-rates/${rate.json.id}`)).status).toBe(404);
    expect((await a.api.call('PATCH', `/v1/tax-rates/${rate.json.id}`, { body: { basis_points: 0 } })).status).toBe(
      404,
    );
    expect((await a.api.call('DELETE', `/v1/tax-rates/${rate.json.id}`)).status).toBe(404);
    expect((await a.api.get('/v1/tax-rates/')).json.pagination.total_count).toBe(0);
    expect((await b.api.get(`/v1/tax-rates/${rate.json.id}`)).json.basis_points).toBe(2100);

    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), b.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/tax-rates/${rate.json.id}`)).status).toBe(200);
    expect((await asMember.call('PATCH', `/v1/tax-rates/${rate.json.id}`, { body: { basis_points: 0 } })).status).toBe(
      403,
    );
  });
});
