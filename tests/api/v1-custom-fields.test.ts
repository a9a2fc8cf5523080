import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant, type Merchant } from '../helpers/v1.js';

const daemon = useTestDaemon();

async function create(merchant: Merchant, body: Record<string, unknown>) {
  const response = await merchant.api.post('/v1/custom-fields/', body);
  expect(response.status, response.text).toBe(201);
  return response.json;
}

const FIELDS: Array<Record<string, unknown>> = [
  {
    type: 'text',
    slug: 'company',
    name: 'Company',
    properties: {
      form_label: 'Company name',
      form_placeholder: 'Acme Inc.',
      textarea: false,
      min_length: 2,
      max_length: 80,
    },
  },
  { type: 'number', slug: 'seats', name: 'Seats', properties: { ge: 1, le: 500, form_help_text: 'How many people?' } },
  { type: 'date', slug: 'start_date', name: 'Start date', properties: { ge: 1767225600 } },
  { type: 'checkbox', slug: 'terms', name: 'Terms', properties: { form_label: 'I accept the terms' } },
  {
    type: 'select',
    slug: 'size',
    name: 'Size',
    properties: {
      options: [
        { value: 's', label: 'Small' },
        { value: 'm', label: 'Medium' },
      ],
    },
  },
];

describe('POST /v1/custom-fields/', () => {
  it('creates each of the five types with Polar’s read shape', async () => {
    const merchant = await createMerchant(daemon());
    const now = daemon().clock.now().toISOString();
    for (const body of FIELDS) {
      const created = await create(merchant, body);
      expect(created).toEqual({
        created_at: now,
        modified_at: null,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        metadata: {},
        type: body.type,
        slug: body.slug,
        name: body.name,
        organization_id: merchant.organization.id,
        properties: body.properties,
      });
    }
    const withMetadata = await create(merchant, {
      type: 'checkbox',
      slug: 'newsletter',
      name: 'Newsletter',
      properties: {},
      metadata: { source: 'cli', weight: 1.5 },
    });
    expect(withMetadata.metadata).toEqual({ source: 'cli', weight: 1.5 });
  });

  it('keeps slugs unique per organization (422 at body.slug), but not across organizations', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    await create(a, FIELDS[0]!);
    const duplicate = await a.api.post('/v1/custom-fields/', { ...FIELDS[3], slug: 'company' });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.detail).toEqual([
      { loc: ['body', 'slug'], msg: 'Custom field with this slug already exists.', type: 'value_error' },
    ]);
    await create(b, FIELDS[0]!);
    // Two creations of one slug at once: the unique index lets exactly one through.
    const raced = await Promise.all(
      [1, 2, 3].map(() => a.api.post('/v1/custom-fields/', { ...FIELDS[1], slug: 'raced' })),
    );
    expect(raced.map((response) => response.status).sort()).toEqual([201, 422, 422]);
  });

  const invalid: Array<[string, Record<string, unknown>, Array<string | number>]> = [
    ['an unknown type', { type: 'color', slug: 'c', name: 'C', properties: {} }, ['body', 'type']],
    ['an uppercase slug', { type: 'text', slug: 'Company', name: 'Company', properties: {} }, ['body', 'slug']],
    ['a slug with spaces', { type: 'text', slug: 'my field', name: 'Field', properties: {} }, ['body', 'slug']],
    ['an empty name', { type: 'text', slug: 'field', name: '', properties: {} }, ['body', 'name']],
    ['an over-long name', { type: 'text', slug: 'field', name: 'n'.repeat(101), properties: {} }, ['body', 'name']],
    [
      'an empty form label',
      { type: 'text', slug: 'field', name: 'Field', properties: { form_label: '' } },
      ['body', 'properties', 'form_label'],
    ],
    [
      'a negative min_length',
      { type: 'text', slug: 'field', name: 'Field', properties: { min_length: -1 } },
      ['body', 'properties', 'min_length'],
    ],
    [
      'max_length under min_length',
      { type: 'text', slug: 'field', name: 'Field', properties: { min_length: 5, max_length: 2 } },
      ['body', 'properties', 'max_length'],
    ],
    [
      'a textarea that is not a boolean',
      { type: 'text', slug: 'field', name: 'Field', properties: { textarea: 'yes' } },
      ['body', 'properties', 'textarea'],
    ],
    [
      'a fractional number bound',
      { type: 'number', slug: 'field', name: 'Field', properties: { ge: 0.5 } },
      ['body', 'properties', 'ge'],
    ],
    [
      'le under ge',
      { type: 'number', slug: 'field', name: 'Field', properties: { ge: 10, le: 1 } },
      ['body', 'properties', 'le'],
    ],
    [
      'a date bound over 32 bits',
      { type: 'date', slug: 'field', name: 'Field', properties: { le: 2 ** 31 } },
      ['body', 'properties', 'le'],
    ],
    [
      'a select without options',
      { type: 'select', slug: 'field', name: 'Field', properties: { options: [] } },
      ['body', 'properties', 'options'],
    ],
    [
      'a select option without label',
      { type: 'select', slug: 'field', name: 'Field', properties: { options: [{ value: 'a' }] } },
      ['body', 'properties', 'options', 0, 'label'],
    ],
    [
      'duplicate option values',
      {
        type: 'select',
        slug: 'field',
        name: 'Field',
        properties: {
          options: [
            { value: 'a', label: 'A' },
            { value: 'a', label: 'B' },
          ],
        },
      },
      ['body', 'properties', 'options', 1, 'value'],
    ],
    [
      'a property of another type',
      { type: 'checkbox', slug: 'field', name: 'Field', properties: { options: [{ value: 'a', label: 'A' }] } },
      ['body', 'properties', 'options'],
    ],
    [
      'nested metadata',
      { type: 'checkbox', slug: 'field', name: 'Field', properties: {}, metadata: { deep: [1] } },
      ['body', 'metadata', 'deep'],
    ],
    [
      'an unknown field',
      { type: 'checkbox', slug: 'field', name: 'Field', properties: {}, required: true },
      ['body', 'required'],
    ],
  ];

  it.each(invalid)('answers 422 with the field’s loc for %s', async (_name, body, loc) => {
    const merchant = await createMerchant(daemon());
    const response = await merchant.api.post('/v1/custom-fields/', body);
    expect(response.status, response.text).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    expect((await merchant.api.get('/v1/custom-fields/')).json.pagination.total_count).toBe(0);
  });
});

describe('GET /v1/custom-fields/', () => {
  it('lists by slug by default, filters by type and searches name and slug', async () => {
    const merchant = await createMerchant(daemon());
    for (const body of FIELDS) {
      await create(merchant, body);
      daemon().clock.advance(1000);
    }
    const other = await createMerchant(daemon());
    await create(other, FIELDS[4]!);

    const all = await merchant.api.get('/v1/custom-fields/');
    expect(all.status).toBe(200);
    expect(all.json.items.map((item: { slug: string }) => item.slug)).toEqual([
      'company',
      'seats',
      'size',
      'start_date',
      'terms',
    ]);
    expect(all.json.pagination).toEqual({ total_count: 5, max_page: 1 });
    const paged = await merchant.api.get('/v1/custom-fields/', { query: { limit: '2', page: '3' } });
    expect(paged.json.items.map((item: { slug: string }) => item.slug)).toEqual(['terms']);
    expect(paged.json.pagination).toEqual({ total_count: 5, max_page: 3 });
    const newest = await merchant.api.get('/v1/custom-fields/', { query: { sorting: '-created_at', limit: '1' } });
    expect(newest.json.items[0].slug).toBe('size');
    const types = await merchant.api.get('/v1/custom-fields/?type=select&type=checkbox');
    expect(types.json.items.map((item: { type: string }) => item.type)).toEqual(['select', 'checkbox']);
    const sdkStyle = await merchant.api.get('/v1/custom-fields/', { query: { type_filter: 'date' } });
    expect(sdkStyle.json.items.map((item: { slug: string }) => item.slug)).toEqual(['start_date']);
    const byName = await merchant.api.get('/v1/custom-fields/', { query: { query: 'sEaT' } });
    expect(byName.json.items.map((item: { slug: string }) => item.slug)).toEqual(['seats']);
    const bySlug = await merchant.api.get('/v1/custom-fields/', { query: { query: 'start_' } });
    expect(bySlug.json.items.map((item: { slug: string }) => item.slug)).toEqual(['start_date']);
    const badSort = await merchant.api.get('/v1/custom-fields/', { query: { sorting: 'label' } });
    expect(badSort.status).toBe(422);
    const badType = await merchant.api.get('/v1/custom-fields/', { query: { type: 'color' } });
    expect(badType.status).toBe(422);
  });

  it('needs custom_fields:read or custom_fields:write', async () => {
    const merchant = await createMerchant(daemon(), { scopes: ['benefits:write'] });
    expect((await merchant.api.get('/v1/custom-fields/')).status).toBe(403);
    const reader = await createMerchant(daemon(), { scopes: ['custom_fields:read'] });
    expect((await reader.api.get('/v1/custom-fields/')).status).toBe(200);
    expect((await reader.api.post('/v1/custom-fields/', FIELDS[3])).status).toBe(403);
  });
});

describe('GET, PATCH and DELETE /v1/custom-fields/{id}', () => {
  it('gets, updates (slug, name, properties, metadata) and deletes', async () => {
    const merchant = await createMerchant(daemon());
    const created = await create(merchant, FIELDS[4]!);
    expect((await merchant.api.get(`/v1/custom-fields/${created.id}`)).json).toEqual(created);

    daemon().clock.advance(5000);
    const updated = await merchant.api.call('PATCH', `/v1/custom-fields/${created.id}`, {
      body: {
        type: 'select',
        slug: 'tshirt-size',
        name: 'T-shirt size',
        metadata: { v: 2 },
        properties: { options: [{ value: 'l', label: 'Large' }] },
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({
      slug: 'tshirt-size',
      name: 'T-shirt size',
      metadata: { v: 2 },
      properties: { options: [{ value: 'l', label: 'Large' }] },
      modified_at: new Date(Date.parse(created.created_at) + 5000).toISOString(),
    });
    expect((await merchant.api.get(`/v1/custom-fields/${created.id}`)).json).toEqual(updated.json);
    const nameOnly = await merchant.api.call('PATCH', `/v1/custom-fields/${created.id}`, {
      body: { type: 'select', name: 'Size' },
    });
    expect(nameOnly.json).toMatchObject({ slug: 'tshirt-size', name: 'Size', properties: updated.json.properties });

    const deleted = await merchant.api.call('DELETE', `/v1/custom-fields/${created.id}`);
    expect(deleted.status).toBe(204);
    expect((await merchant.api.get(`/v1/custom-fields/${created.id}`)).status).toBe(404);
    expect((await merchant.api.call('DELETE', `/v1/custom-fields/${created.id}`)).status).toBe(404);
    // The slug is free again.
    await create(merchant, { ...FIELDS[4], slug: 'tshirt-size' });
  });

  it('refuses a change of type, a taken slug and invalid properties', async () => {
    const merchant = await createMerchant(daemon());
    const text = await create(merchant, FIELDS[0]!);
    await create(merchant, FIELDS[1]!);
    const typeChange = await merchant.api.call('PATCH', `/v1/custom-fields/${text.id}`, {
      body: { type: 'number', name: 'Now a number' },
    });
    expect(typeChange.status).toBe(422);
    expect(typeChange.json.detail[0].loc).toEqual(['body', 'type']);
    const taken = await merchant.api.call('PATCH', `/v1/custom-fields/${text.id}`, {
      body: { type: 'text', slug: 'seats' },
    });
    expect(taken.status).toBe(422);
    expect(taken.json.detail[0].loc).toEqual(['body', 'slug']);
    const badProps = await merchant.api.call('PATCH', `/v1/custom-fields/${text.id}`, {
      body: { type: 'text', properties: { max_length: -3 } },
    });
    expect(badProps.status).toBe(422);
    expect(badProps.json.detail[0].loc).toEqual(['body', 'properties', 'max_length']);
    expect((await merchant.api.get(`/v1/custom-fields/${text.id}`)).json).toEqual(text);
  });

  it('detaches a deleted field from the products that asked for it', async () => {
    const merchant = await createMerchant(daemon());
    const field = await create(merchant, FIELDS[3]!);
    const db = daemon().core.db;
    const productId = randomUUID();
    await db('products').insert({
      id: productId,
      organization_id: merchant.organization.id,
      name: 'Pro',
      metadata: '{}',
      created_at: daemon().clock.now(),
    });
    await db('product_custom_fields').insert({
      product_id: productId,
      custom_field_id: field.id,
      order: 0,
      required: true,
    });
    expect((await merchant.api.call('DELETE', `/v1/custom-fields/${field.id}`)).status).toBe(204);
    expect(await db('product_custom_fields').where({ product_id: productId })).toEqual([]);
  });

  it('answers 404 for unknown or malformed ids', async () => {
    const merchant = await createMerchant(daemon());
    for (const id of [randomUUID(), 'nope']) {
      const response = await merchant.api.get(`/v1/custom-fields/${id}`);
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
    }
  });
});

describe('tenancy and roles', () => {
  it('hides another organization’s field behind a 404 and changes nothing', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const theirs = await create(b, FIELDS[0]!);
    expect((await a.api.get(`/v1/custom-fields/${theirs.id}`)).status).toBe(404);
    expect(
      (await a.api.call('PATCH', `/v1/custom-fields/${theirs.id}`, { body: { type: 'text', name: 'Hijacked' } }))
        .status,
    ).toBe(404);
    expect((await a.api.call('DELETE', `/v1/custom-fields/${theirs.id}`)).status).toBe(404);
    expect(
      (await a.api.get('/v1/custom-fields/', { query: { organization_id: b.organization.id } })).json.items,
    ).toEqual([]);
    expect((await b.api.get(`/v1/custom-fields/${theirs.id}`)).json).toEqual(theirs);
  });

  it('lets a member read but not write (403 NotPermitted)', async () => {
    const merchant = await createMerchant(daemon());
    const field = await create(merchant, FIELDS[0]!);
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get(`/v1/custom-fields/${field.id}`)).status).toBe(200);
    for (const response of [
      await asMember.post('/v1/custom-fields/', { ...FIELDS[3], organization_id: merchant.organization.id }),
      await asMember.call('PATCH', `/v1/custom-fields/${field.id}`, { body: { type: 'text', name: 'By member' } }),
      await asMember.call('DELETE', `/v1/custom-fields/${field.id}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
    expect((await merchant.api.get(`/v1/custom-fields/${field.id}`)).json).toEqual(field);
  });
});
