import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

// A meter no organization has: meter_credit refuses it.
const METER = '0e9a9c4f-7d0e-4c55-8a2e-6a8f1b3e2d41';

/** A meter of the merchant's, which a meter_credit benefit names. */
async function meterOf(merchant: Merchant): Promise<string> {
  const created = await merchant.api.post('/v1/meters/', {
    name: 'API calls',
    filter: { conjunction: 'and', clauses: [{ property: 'name', operator: 'eq', value: 'api_call' }] },
    aggregation: { func: 'count' },
  });
  if (created.status !== 201) throw new Error(`meter create failed: ${created.status} ${created.text}`);
  return created.json.id as string;
}

/**
 * A valid body of each type; files for downloadables are made in the merchant's organization, and the meter of
 * meter_credit too.
 */
async function bodies(merchant: Merchant): Promise<Record<string, Record<string, unknown>>> {
  const file = await downloadableFile(merchant.organization.id);
  const meterId = await meterOf(merchant);
  return {
    custom: { type: 'custom', description: 'Private Slack', properties: { note: 'Join at example.com' } },
    discord: {
      type: 'discord',
      description: 'Discord role',
      properties: { guild_token: '123456789012345678', role_id: '876543210987654321', kick_member: true },
    },
    github_repository: {
      type: 'github_repository',
      description: 'Repo access',
      properties: { repository_owner: 'acme', repository_name: 'private_repo', permission: 'pull' },
    },
    downloadables: { type: 'downloadables', description: 'E-book', properties: { files: [file] } },
    license_keys: {
      type: 'license_keys',
      description: 'License',
      properties: {
        prefix: 'ACME',
        expires: { ttl: 1, timeframe: 'year' },
        activations: { limit: 3, enable_customer_admin: true },
        limit_usage: 100,
      },
    },
    meter_credit: {
      type: 'meter_credit',
      description: 'API credits',
      properties: { units: 1000, rollover: false, meter_id: meterId },
    },
  };
}

/** A downloadable file row as the files module writes it once uploaded. */
async function downloadableFile(organizationId: string, service = 'downloadable'): Promise<string> {
  const id = randomUUID();
  await daemon()
    .core.db('files')
    .insert({
      id,
      organization_id: organizationId,
      name: 'book.pdf',
      path: `${organizationId}/${id}/book.pdf`,
      mime_type: 'application/pdf',
      size: 1024,
      service,
      upload_id: randomUUID(),
      is_uploaded: true,
      created_at: daemon().clock.now(),
    });
  return id;
}

async function create(merchant: Merchant, body: Record<string, unknown>) {
  const response = await merchant.api.post('/v1/benefits/', body);
  expect(response.status, response.text).toBe(201);
  return response.json;
}

describe('POST /v1/benefits/', () => {
  it('creates each of the six types with Polar’s read shape, nulls where absent, and records benefit.created', async () => {
    const merchant = await createMerchant(daemon());
    const all = await bodies(merchant);
    const now = daemon().clock.now().toISOString();
    const created = await create(merchant, all.custom!);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: now,
      modified_at: null,
      type: 'custom',
      description: 'Private Slack',
      selectable: true,
      deletable: true,
      is_deleted: false,
      organization_id: merchant.organization.id,
      metadata: {},
      visibility: 'public',
      visibility_configurable: true,
      properties: { note: 'Join at example.com' },
    });

    const discord = await create(merchant, all.discord!);
    expect(discord.properties).toEqual({
      guild_id: '123456789012345678',
      guild_token: '123456789012345678',
      role_id: '876543210987654321',
      kick_member: true,
    });
    const github = await create(merchant, all.github_repository!);
    expect(github.properties).toEqual({
      repository_owner: 'acme',
      repository_name: 'private_repo',
      permission: 'pull',
    });
    const downloadables = await create(merchant, all.downloadables!);
    const file = (all.downloadables!.properties as { files: string[] }).files[0]!;
    expect(downloadables.properties).toEqual({ files: [file], archived: { [file]: false } });
    const license = await create(merchant, all.license_keys!);
    expect(license.properties).toEqual({
      prefix: 'ACME',
      expires: { ttl: 1, timeframe: 'year' },
      activations: { limit: 3, enable_customer_admin: true },
      limit_usage: 100,
    });
    const bare = await create(merchant, { type: 'license_keys', description: 'Bare license', properties: {} });
    expect(bare.properties).toEqual({ prefix: null, expires: null, activations: null, limit_usage: null });
    const meter = await create(merchant, all.meter_credit!);
    expect(meter.properties).toEqual({
      units: 1000,
      rollover: false,
      meter_id: (all.meter_credit!.properties as { meter_id: string }).meter_id,
    });
    const note = await create(merchant, {
      type: 'custom',
      description: 'No note',
      properties: {},
      metadata: { tier: 'gold', seats: 3, vip: true },
    });
    expect(note.properties).toEqual({ note: null });
    expect(note.metadata).toEqual({ tier: 'gold', seats: 3, vip: true });

    const events = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: merchant.organization.id, type: 'benefit.created' });
    expect(events).toHaveLength(8);
    expect(JSON.parse(events.find((event) => JSON.parse(event.payload).id === created.id).payload)).toEqual(created);
  });

  it('refuses a token creating for another organization and needs organization_id from a member of several', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const body = { type: 'custom', description: 'Sneaky', properties: {}, organization_id: b.organization.id };
    const response = await a.api.post('/v1/benefits/', body);
    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(['body', 'organization_id']);
    expect((await b.api.get('/v1/benefits/')).json.pagination.total_count).toBe(0);
    // A member session names its organization.
    const viaSession = await a.session.post('/v1/benefits/', { ...body, organization_id: a.organization.id });
    expect(viaSession.status).toBe(201);
    expect(viaSession.json.organization_id).toBe(a.organization.id);
  });

  const invalid: Array<[string, Record<string, unknown>, Array<string | number>]> = [
    ['an unknown type', { type: 'feature_flag', description: 'Flag', properties: {} }, ['body', 'type']],
    [
      'a description under 3 characters',
      { type: 'custom', description: 'ab', properties: {} },
      ['body', 'description'],
    ],
    [
      'a description over 42 characters',
      { type: 'custom', description: 'x'.repeat(43), properties: {} },
      ['body', 'description'],
    ],
    ['no properties', { type: 'custom', description: 'Custom' }, ['body', 'properties']],
    [
      'an unknown top-level field',
      { type: 'custom', description: 'Custom', properties: {}, selectable: false },
      ['body', 'selectable'],
    ],
    [
      'an unknown property',
      { type: 'custom', description: 'Custom', properties: { note: 'x', colour: 'red' } },
      ['body', 'properties', 'colour'],
    ],
    [
      'nested metadata',
      { type: 'custom', description: 'Custom', properties: {}, metadata: { deep: { a: 1 } } },
      ['body', 'metadata', 'deep'],
    ],
    [
      'a metadata key over 40 characters',
      { type: 'custom', description: 'Custom', properties: {}, metadata: { ['k'.repeat(41)]: 1 } },
      ['body', 'metadata', 'k'.repeat(41)],
    ],
    [
      'an unknown visibility',
      { type: 'custom', description: 'Custom', properties: {}, visibility: 'secret' },
      ['body', 'visibility'],
    ],
    [
      'a discord guild token that is not an id',
      {
        type: 'discord',
        description: 'Discord',
        properties: { guild_token: 'abc', role_id: '876543210987654321', kick_member: false },
      },
      ['body', 'properties', 'guild_token'],
    ],
    [
      'a discord benefit without kick_member',
      {
        type: 'discord',
        description: 'Discord',
        properties: { guild_token: '123456789012345678', role_id: '876543210987654321' },
      },
      ['body', 'properties', 'kick_member'],
    ],
    [
      'an unknown repository permission',
      {
        type: 'github_repository',
        description: 'Repo',
        properties: { repository_owner: 'acme', repository_name: 'repo', permission: 'write' },
      },
      ['body', 'properties', 'permission'],
    ],
    [
      'an over-long repository name',
      {
        type: 'github_repository',
        description: 'Repo',
        properties: { repository_owner: 'acme', repository_name: 'r'.repeat(101), permission: 'push' },
      },
      ['body', 'properties', 'repository_name'],
    ],
    [
      'no files',
      { type: 'downloadables', description: 'Files', properties: { files: [] } },
      ['body', 'properties', 'files'],
    ],
    [
      'a file id that is not a UUID',
      { type: 'downloadables', description: 'Files', properties: { files: ['nope'] } },
      ['body', 'properties', 'files', 0],
    ],
    [
      'an unknown expiry timeframe',
      { type: 'license_keys', description: 'License', properties: { expires: { ttl: 1, timeframe: 'week' } } },
      ['body', 'properties', 'expires', 'timeframe'],
    ],
    [
      'a zero ttl',
      { type: 'license_keys', description: 'License', properties: { expires: { ttl: 0, timeframe: 'day' } } },
      ['body', 'properties', 'expires', 'ttl'],
    ],
    [
      'a negative activation limit',
      {
        type: 'license_keys',
        description: 'License',
        properties: { activations: { limit: -1, enable_customer_admin: false } },
      },
      ['body', 'properties', 'activations', 'limit'],
    ],
    [
      'a fractional usage limit',
      { type: 'license_keys', description: 'License', properties: { limit_usage: 1.5 } },
      ['body', 'properties', 'limit_usage'],
    ],
    [
      'a usage limit over 32 bits',
      { type: 'license_keys', description: 'License', properties: { limit_usage: 2 ** 31 } },
      ['body', 'properties', 'limit_usage'],
    ],
    [
      'zero meter units',
      { type: 'meter_credit', description: 'Credits', properties: { units: 0, rollover: true, meter_id: METER } },
      ['body', 'properties', 'units'],
    ],
    [
      'a meter id that is not a UUID',
      { type: 'meter_credit', description: 'Credits', properties: { units: 5, rollover: true, meter_id: 'meter' } },
      ['body', 'properties', 'meter_id'],
    ],
  ];

  it.each(invalid)('answers 422 with the field’s loc for %s', async (_name, body, loc) => {
    const merchant = await createMerchant(daemon());
    const response = await merchant.api.post('/v1/benefits/', body);
    expect(response.status, response.text).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    expect((await merchant.api.get('/v1/benefits/')).json.pagination.total_count).toBe(0);
  });

  it('accepts only downloadable files of the caller’s own organization', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const mine = await downloadableFile(a.organization.id);
    const theirs = await downloadableFile(b.organization.id);
    const media = await downloadableFile(a.organization.id, 'product_media');
    const response = await a.api.post('/v1/benefits/', {
      type: 'downloadables',
      description: 'Files',
      properties: { files: [mine, theirs, media, randomUUID()] },
    });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([
      ['body', 'properties', 'files', 1],
      ['body', 'properties', 'files', 2],
      ['body', 'properties', 'files', 3],
    ]);
    const ok = await a.api.post('/v1/benefits/', {
      type: 'downloadables',
      description: 'Files',
      properties: { files: [mine], archived: { [mine]: true } },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.properties).toEqual({ files: [mine], archived: { [mine]: true } });
  });
});

describe('GET /v1/benefits/', () => {
  it('lists the organization’s benefits with filters, search, sorting and pages', async () => {
    const merchant = await createMerchant(daemon());
    const all = await bodies(merchant);
    const ids: string[] = [];
    for (const type of ['custom', 'discord', 'github_repository', 'downloadables', 'license_keys', 'meter_credit']) {
      ids.push((await create(merchant, all[type]!)).id);
      daemon().clock.advance(1000);
    }
    const other = await createMerchant(daemon());
    await create(other, { type: 'custom', description: 'Not yours', properties: {} });

    const first = await merchant.api.get('/v1/benefits/', { query: { limit: '4' } });
    expect(first.status).toBe(200);
    expect(first.json.pagination).toEqual({ total_count: 6, max_page: 2 });
    // Newest first by default.
    expect(first.json.items.map((item: { id: string }) => item.id)).toEqual(ids.slice(2).reverse());
    const second = await merchant.api.get('/v1/benefits/', { query: { limit: '4', page: '2' } });
    expect(second.json.items.map((item: { id: string }) => item.id)).toEqual(ids.slice(0, 2).reverse());

    const byType = await merchant.api.get('/v1/benefits/?type=license_keys&type=meter_credit');
    expect(byType.json.items.map((item: { type: string }) => item.type).sort()).toEqual([
      'license_keys',
      'meter_credit',
    ]);
    const sdkStyle = await merchant.api.get('/v1/benefits/', { query: { type_filter: 'discord' } });
    expect(sdkStyle.json.items.map((item: { type: string }) => item.type)).toEqual(['discord']);
    const search = await merchant.api.get('/v1/benefits/', { query: { query: 'REPO' } });
    expect(search.json.items.map((item: { description: string }) => item.description)).toEqual(['Repo access']);
    const wildcard = await merchant.api.get('/v1/benefits/', { query: { query: '%' } });
    expect(wildcard.json.pagination.total_count).toBe(0);
    const sorted = await merchant.api.get('/v1/benefits/', { query: { sorting: 'description' } });
    expect(sorted.json.items.map((item: { description: string }) => item.description)).toEqual([
      'API credits',
      'Discord role',
      'E-book',
      'License',
      'Private Slack',
      'Repo access',
    ]);
    const excluded = await merchant.api.get(`/v1/benefits/?exclude_id=${ids[0]}&exclude_id=${ids[1]}`);
    expect(excluded.json.pagination.total_count).toBe(4);
    const byId = await merchant.api.get('/v1/benefits/', { query: { id: ids[3]! } });
    expect(byId.json.items.map((item: { id: string }) => item.id)).toEqual([ids[3]]);
    const foreignOrg = await merchant.api.get('/v1/benefits/', { query: { organization_id: other.organization.id } });
    expect(foreignOrg.json).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it('answers 422 for an unknown type filter or sorting field', async () => {
    const merchant = await createMerchant(daemon());
    const type = await merchant.api.get('/v1/benefits/', { query: { type: 'feature_flag' } });
    expect(type.status).toBe(422);
    expect(type.json.detail[0].loc[0]).toBe('query');
    const sorting = await merchant.api.get('/v1/benefits/', { query: { sorting: 'price' } });
    expect(sorting.status).toBe(422);
    expect(sorting.json.detail[0].loc.slice(0, 2)).toEqual(['query', 'sorting']);
  });

  it('needs benefits:read or benefits:write', async () => {
    const merchant = await createMerchant(daemon(), { scopes: ['products:read'] });
    const response = await merchant.api.get('/v1/benefits/');
    expect(response.status).toBe(403);
    expect(response.json.error).toBe('NotPermitted');
    const reader = await createMerchant(daemon(), { scopes: ['benefits:read'] });
    expect((await reader.api.get('/v1/benefits/')).status).toBe(200);
    expect(
      (await reader.api.post('/v1/benefits/', { type: 'custom', description: 'Nope', properties: {} })).status,
    ).toBe(403);
  });
});

describe('GET, PATCH and DELETE /v1/benefits/{id}', () => {
  it('gets a benefit; unknown and malformed ids are 404 ResourceNotFound', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Get me', properties: {} });
    const got = await merchant.api.get(`/v1/benefits/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(created);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const missing = await merchant.api.get(`/v1/benefits/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
    }
  });

  it('updates description, metadata, visibility and properties; records benefit.updated', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, {
      type: 'license_keys',
      description: 'License',
      properties: { prefix: 'OLD' },
      metadata: { a: 1 },
    });
    daemon().clock.advance(60_000);
    const updated = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
      body: {
        type: 'license_keys',
        description: 'Pro license',
        metadata: { b: 'two' },
        visibility: 'private',
        properties: { activations: { limit: 2, enable_customer_admin: false } },
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      description: 'Pro license',
      metadata: { b: 'two' },
      visibility: 'private',
      modified_at: new Date(Date.parse(created.created_at) + 60_000).toISOString(),
      created_at: created.created_at,
      properties: {
        prefix: null,
        expires: null,
        activations: { limit: 2, enable_customer_admin: false },
        limit_usage: null,
      },
    });
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).json).toEqual(updated.json);

    // Only `type` given: nothing but modified_at changes.
    const same = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, { body: { type: 'license_keys' } });
    expect(same.json.description).toBe('Pro license');
    expect(same.json.properties).toEqual(updated.json.properties);

    const events = await daemon()
      .core.db('outbox_events')
      .where({ organization_id: merchant.organization.id, type: 'benefit.updated' });
    expect(events).toHaveLength(2);
  });

  it('refuses a change of type, invalid properties for the type, and unknown fields', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Stay custom', properties: {} });
    const typeChange = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
      body: { type: 'meter_credit', properties: { units: 1, rollover: false, meter_id: METER } },
    });
    expect(typeChange.status).toBe(422);
    expect(typeChange.json.detail[0].loc).toEqual(['body', 'type']);
    const badProps = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
      body: { type: 'custom', properties: { note: 5 } },
    });
    expect(badProps.status).toBe(422);
    expect(badProps.json.detail[0].loc).toEqual(['body', 'properties', 'note']);
    const noType = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
      body: { description: 'Typeless' },
    });
    expect(noType.status).toBe(422);
    const extra = await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
      body: { type: 'custom', deletable: false },
    });
    expect(extra.status).toBe(422);
    expect(extra.json.detail[0].loc).toEqual(['body', 'deletable']);
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).json).toEqual(created);
  });

  it('soft-deletes: the benefit disappears from gets and lists, the row stays', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Delete me', properties: {} });
    const deleted = await merchant.api.call('DELETE', `/v1/benefits/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).status).toBe(404);
    expect((await merchant.api.get('/v1/benefits/')).json.pagination.total_count).toBe(0);
    expect(
      (
        await merchant.api.call('PATCH', `/v1/benefits/${created.id}`, {
          body: { type: 'custom', description: 'Back' },
        })
      ).status,
    ).toBe(404);
    expect((await merchant.api.call('DELETE', `/v1/benefits/${created.id}`)).status).toBe(404);
    const row = await daemon().core.db('benefits').where({ id: created.id }).first();
    expect(row.deleted_at).not.toBeNull();
  });

  it('refuses to delete a benefit that is not deletable (403 NotPermitted)', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Platform made', properties: {} });
    await daemon().core.db('benefits').where({ id: created.id }).update({ deletable: false });
    const refused = await merchant.api.call('DELETE', `/v1/benefits/${created.id}`);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'NotPermitted', detail: 'This benefit is not deletable.' });
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).json.deletable).toBe(false);
  });

  it('refuses to delete a benefit still on a product, and deletes it once taken off', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'On a product', properties: {} });
    const db = daemon().core.db;
    const productId = randomUUID();
    await db('products').insert({
      id: productId,
      organization_id: merchant.organization.id,
      name: 'Pro',
      metadata: '{}',
      created_at: daemon().clock.now(),
    });
    await db('product_benefits').insert({ product_id: productId, benefit_id: created.id, order: 0 });
    const refused = await merchant.api.call('DELETE', `/v1/benefits/${created.id}`);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('NotPermitted');
    expect(refused.json.detail).toMatch(/attached to 1 product/);
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).status).toBe(200);

    await db('product_benefits').where({ product_id: productId }).delete();
    expect((await merchant.api.call('DELETE', `/v1/benefits/${created.id}`)).status).toBe(204);
  });

  it('lists no grants yet, in ListResource shape, after authorizing', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Granted', properties: {} });
    const grants = await merchant.api.get(`/v1/benefits/${created.id}/grants`, {
      query: { is_granted: 'true', page: '1', limit: '5' },
    });
    expect(grants.status).toBe(200);
    expect(grants.json).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    expect((await merchant.api.get(`/v1/benefits/${randomUUID()}/grants`)).status).toBe(404);
  });
});

describe('tenancy and roles', () => {
  it('hides another organization’s benefit behind a 404 everywhere and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const theirs = await create(b, { type: 'custom', description: 'B’s benefit', properties: { note: 'secret' } });
    expect((await a.api.get(`/v1/benefits/${theirs.id}`)).status).toBe(404);
    expect((await a.api.get(`/v1/benefits/${theirs.id}/grants`)).status).toBe(404);
    expect(
      (await a.api.call('PATCH', `/v1/benefits/${theirs.id}`, { body: { type: 'custom', description: 'Hijacked' } }))
        .status,
    ).toBe(404);
    expect((await a.api.call('DELETE', `/v1/benefits/${theirs.id}`)).status).toBe(404);
    // A's own session is no better placed than A's token.
    expect((await a.session.call('DELETE', `/v1/benefits/${theirs.id}`)).status).toBe(404);
    expect((await b.api.get(`/v1/benefits/${theirs.id}`)).json).toEqual(theirs);
  });

  it('lets a member read but not write (403 NotPermitted)', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, { type: 'custom', description: 'Team perk', properties: {} });
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get('/v1/benefits/')).json.pagination.total_count).toBe(1);
    expect((await asMember.get(`/v1/benefits/${created.id}`)).status).toBe(200);
    for (const response of [
      await asMember.post('/v1/benefits/', {
        type: 'custom',
        description: 'By member',
        properties: {},
        organization_id: merchant.organization.id,
      }),
      await asMember.call('PATCH', `/v1/benefits/${created.id}`, {
        body: { type: 'custom', description: 'By member' },
      }),
      await asMember.call('DELETE', `/v1/benefits/${created.id}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
    expect((await merchant.api.get(`/v1/benefits/${created.id}`)).json).toEqual(created);
  });
});

describe('OpenAPI document', () => {
  it('describes the benefit and custom field operations with Polar’s schema names', async () => {
    const { api } = await createMerchant(daemon());
    const document = (await api.get('/v1/openapi.json')).json;
    for (const path of [
      '/v1/benefits/',
      '/v1/benefits/{id}',
      '/v1/benefits/{id}/grants',
      '/v1/custom-fields/',
      '/v1/custom-fields/{id}',
    ])
      expect(document.paths[path]).toBeDefined();
    expect(Object.keys(document.paths['/v1/benefits/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    for (const name of [
      'Benefit',
      'BenefitLicenseKeys',
      'BenefitLicenseKeysCreate',
      'BenefitDiscordCreateProperties',
      'ListResource_Benefit_',
      'ListResource_BenefitGrant_',
      'CustomField',
      'CustomFieldSelect',
      'CustomFieldCreateSelect',
      'ListResource_CustomField_',
    ]) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
  });
});
