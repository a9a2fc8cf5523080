import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, createOrganization, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

describe('/v1 authentication', () => {
  it('answers 401 in Polar’s shape without a token or with an unknown one', async () => {
    const { api } = await createMerchant(daemon());
    const anonymous = bearerClient(daemon(), 'till_oat_nottherealtoken');
    for (const response of [
      await anonymous.get('/v1/organization-access-tokens/'),
      await api.get('/v1/organization-access-tokens/', { headers: { authorization: '' } }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: 'Unauthorized', detail: expect.any(String) });
    }
  });

  it('refuses a token without the scope (403) and accepts any one of the route’s scopes', async () => {
    const merchant = await createMerchant(daemon(), { scopes: ['organization_access_tokens:read'] });
    expect((await merchant.api.get('/v1/organization-access-tokens/')).status).toBe(200);
    const write = await merchant.api.post('/v1/organization-access-tokens/', { comment: 'x', scopes: [] });
    expect(write.status).toBe(403);
    expect(write.json.error).toBe('NotPermitted');
  });

  it('lets an expired token in no more', async () => {
    const merchant = await createMerchant(daemon());
    const created = await merchant.api.post('/v1/organization-access-tokens/', {
      comment: 'short',
      scopes: ['organization_access_tokens:read'],
      expires_in: 'PT1H',
    });
    expect(created.status).toBe(201);
    expect(
      Date.parse(created.json.organization_access_token.expires_at) -
        Date.parse(created.json.organization_access_token.created_at),
    ).toBe(3_600_000);
    const short = bearerClient(daemon(), created.json.token);
    expect((await short.get('/v1/organization-access-tokens/')).status).toBe(200);
    daemon().clock.advance(3_600_001);
    expect((await short.get('/v1/organization-access-tokens/')).status).toBe(401);
  });

  it('accepts a member’s session token: owners and admins write, members read', async () => {
    const merchant = await createMerchant(daemon());
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get('/v1/organization-access-tokens/')).json.pagination.total_count).toBe(1);
    const refused = await asMember.post('/v1/organization-access-tokens/', {
      organization_id: merchant.organization.id,
      comment: 'x',
      scopes: [],
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');

    const admin = await signedInUser(daemon(), 'Admin');
    await addMember(daemon(), merchant.organization.id, admin.user.id, 'admin');
    const asAdmin = bearerClient(daemon(), admin.token);
    expect(
      (
        await asAdmin.post('/v1/organization-access-tokens/', {
          organization_id: merchant.organization.id,
          comment: 'by admin',
          scopes: [],
        })
      ).status,
    ).toBe(201);
  });

  it('needs organization_id from a member of several organizations with none active, and refuses others’ ids', async () => {
    const merchant = await createMerchant(daemon());
    const second = await createOrganization(merchant.owner.client, { name: 'Second' });
    // Creating the second organization made it active; clear the choice.
    await merchant.owner.client.post('/api/auth/organization/set-active', { organizationId: null });
    const missing = await merchant.session.post('/v1/organization-access-tokens/', { comment: 'x', scopes: [] });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['body', 'organization_id']);
    const ok = await merchant.session.post('/v1/organization-access-tokens/', {
      organization_id: second.id,
      comment: 'x',
      scopes: [],
    });
    expect(ok.status).toBe(201);
    expect(ok.json.organization_access_token.organization_id).toBe(second.id);

    const stranger = await createMerchant(daemon());
    const foreign = await stranger.session.post('/v1/organization-access-tokens/', {
      organization_id: second.id,
      comment: 'x',
      scopes: [],
    });
    expect(foreign.status).toBe(422);
  });

  it('hides another organization’s token behind a 404 and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const bTokens = await b.api.get('/v1/organization-access-tokens/');
    const id = bTokens.json.items[0].id as string;
    expect(
      (await a.api.call('PATCH', `/v1/organization-access-tokens/${id}`, { body: { comment: 'hijacked' } })).status,
    ).toBe(404);
    expect((await a.api.call('DELETE', `/v1/organization-access-tokens/${id}`)).status).toBe(404);
    expect((await b.api.get('/v1/organization-access-tokens/')).json.items[0].comment).toBe('test token');
  });

  it('accepts Polar-Version and Polar-Organization headers it does not know', async () => {
    const { api } = await createMerchant(daemon());
    const response = await api.get('/v1/organization-access-tokens/', {
      headers: { 'polar-version': '2099-01-01', 'polar-organization': 'whatever' },
    });
    expect(response.status).toBe(200);
  });
});

describe('/v1 lists', () => {
  it('pages with page and limit, caps limit at 100, sorts, and reports max_page', async () => {
    const merchant = await createMerchant(daemon());
    for (let i = 0; i < 4; i++) {
      expect(
        (await merchant.api.post('/v1/organization-access-tokens/', { comment: `t${i}`, scopes: [] })).status,
      ).toBe(201);
      daemon().clock.advance(1000);
    }
    const first = await merchant.api.get('/v1/organization-access-tokens/', {
      query: { limit: '2', sorting: 'comment' },
    });
    expect(first.json.pagination).toEqual({ total_count: 5, max_page: 3 });
    expect(first.json.items.map((token: { comment: string }) => token.comment)).toEqual(['t0', 't1']);
    const last = await merchant.api.get('/v1/organization-access-tokens/', {
      query: { limit: '2', page: '3', sorting: 'comment' },
    });
    expect(last.json.items.map((token: { comment: string }) => token.comment)).toEqual(['test token']);
    const newest = await merchant.api.get('/v1/organization-access-tokens/', { query: { limit: '1000' } });
    expect(newest.json.items[0].comment).toBe('t3');
    expect(newest.json.pagination.max_page).toBe(1);
    const badSort = await merchant.api.get('/v1/organization-access-tokens/', { query: { sorting: 'password' } });
    expect(badSort.status).toBe(422);
    expect(badSort.json.detail[0].loc).toEqual(['query', 'sorting']);
    const badPage = await merchant.api.get('/v1/organization-access-tokens/', { query: { page: '0' } });
    expect(badPage.status).toBe(422);
    expect(badPage.json.detail[0].loc).toEqual(['query', 'page']);
  });
});

describe('/v1 errors', () => {
  it('answers invalid input with 422 and the field’s location, malformed JSON included', async () => {
    const { api } = await createMerchant(daemon());
    const wrongType = await api.post('/v1/organization-access-tokens/', { comment: 42, scopes: ['products:read'] });
    expect(wrongType.status).toBe(422);
    expect(wrongType.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'comment'], type: 'type_error' })]);
    const unknownScope = await api.post('/v1/organization-access-tokens/', { comment: 'x', scopes: ['root'] });
    expect(unknownScope.json.detail[0].loc).toEqual(['body', 'scopes', 0]);
    const extra = await api.post('/v1/organization-access-tokens/', { comment: 'x', scopes: [], admin: true });
    expect(extra.json.detail[0]).toMatchObject({ loc: ['body', 'admin'], type: 'extra_forbidden' });
    const missing = await api.post('/v1/organization-access-tokens/', { scopes: [] });
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'comment'], type: 'missing' });
    const longComment = await api.post('/v1/organization-access-tokens/', { comment: 'x'.repeat(256), scopes: [] });
    expect(longComment.status).toBe(422);
    const badDuration = await api.post('/v1/organization-access-tokens/', {
      comment: 'x',
      scopes: [],
      expires_in: 'soon',
    });
    expect(badDuration.json.detail[0].loc).toEqual(['body', 'expires_in']);
    const malformed = await api.call('POST', '/v1/organization-access-tokens/', {
      rawBody: '{"comment":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].type).toBe('json_invalid');
    const noBody = await api.call('POST', '/v1/organization-access-tokens/');
    expect(noBody.status).toBe(422);
  });

  it('answers unknown /v1 paths with Polar’s 404', async () => {
    const { api } = await createMerchant(daemon());
    const response = await api.get('/v1/no-such-thing/');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'create-token-1' };
    const first = await api.post('/v1/organization-access-tokens/', { comment: 'once', scopes: [] }, { headers });
    const second = await api.post('/v1/organization-access-tokens/', { comment: 'once', scopes: [] }, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json).toEqual(first.json);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const list = await api.get('/v1/organization-access-tokens/');
    expect(list.json.items.filter((token: { comment: string }) => token.comment === 'once')).toHaveLength(1);
  });

  it('refuses the same key with another body (422) and keys are per caller', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'shared-key' };
    expect(
      (await a.api.post('/v1/organization-access-tokens/', { comment: 'first', scopes: [] }, { headers })).status,
    ).toBe(201);
    const conflict = await a.api.post(
      '/v1/organization-access-tokens/',
      { comment: 'second', scopes: [] },
      { headers },
    );
    expect(conflict.status).toBe(422);
    expect(conflict.json.detail[0].loc).toEqual(['header', 'idempotency-key']);
    expect(
      (await b.api.post('/v1/organization-access-tokens/', { comment: 'other caller', scopes: [] }, { headers }))
        .status,
    ).toBe(201);
  });

  it('does not let a validation error consume the key', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'retry-after-fix' };
    expect((await api.post('/v1/organization-access-tokens/', { comment: '', scopes: [] }, { headers })).status).toBe(
      422,
    );
    expect(
      (await api.post('/v1/organization-access-tokens/', { comment: 'fixed', scopes: [] }, { headers })).status,
    ).toBe(201);
  });

  it('runs one of many concurrent requests with the same key', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'concurrent' };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.post('/v1/organization-access-tokens/', { comment: 'race', scopes: [] }, { headers }),
      ),
    );
    const created = responses.filter((response) => response.status === 201);
    for (const response of responses) expect([201, 409]).toContain(response.status);
    expect(new Set(created.map((response) => response.json.token)).size).toBe(1);
    const list = await api.get('/v1/organization-access-tokens/');
    expect(list.json.items.filter((token: { comment: string }) => token.comment === 'race')).toHaveLength(1);
  });

  it('forgets keys after 24 hours', async () => {
    const { api } = await createMerchant(daemon());
    const headers = { 'idempotency-key': 'day-old' };
    const first = await api.post('/v1/organization-access-tokens/', { comment: 'day', scopes: [] }, { headers });
    daemon().clock.advance(24 * 3_600_000 + 1);
    const later = await api.post('/v1/organization-access-tokens/', { comment: 'day', scopes: [] }, { headers });
    expect(later.status).toBe(201);
    expect(later.json.token).not.toBe(first.json.token);
  });
});

describe('OpenAPI document and reference page', () => {
  it('describes every registered operation with its schemas', async () => {
    const { api } = await createMerchant(daemon());
    const response = await api.get('/v1/openapi.json');
    expect(response.status).toBe(200);
    const document = response.json;
    expect(document.openapi).toBe('3.1.0');
    const create = document.paths['/v1/organization-access-tokens/'].post;
    expect(create.operationId).toBe('organization_access_tokens:create');
    expect(create.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/OrganizationAccessTokenCreate',
    );
    expect(document.components.schemas.OrganizationAccessToken.required).toContain('last_used_at');
    expect(document.paths['/v1/organization-access-tokens/{id}'].patch.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      required: true,
    });
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
    const page = await api.get('/v1/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/v1/organization-access-tokens/{id}');
  });
});
