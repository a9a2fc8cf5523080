import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { partsOf, putPart, uploadFile } from '../helpers/files.js';
import { TestClient } from '../helpers/http.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { bearerClient, createMerchant } from '../helpers/v1.js';

// Who may do what with files, what the public may see, and what input is refused.

const daemon = useTestDaemon();

const createBody = (bytes: Buffer, extra: Record<string, unknown> = {}) => ({
  service: 'downloadable',
  name: 'x.bin',
  mime_type: 'application/octet-stream',
  size: bytes.length,
  upload: { parts: partsOf(bytes, 1024 * 1024) },
  ...extra,
});

describe('/v1/files access', () => {
  it('hides another organization’s file behind a 404 on every route', async () => {
    const a = await createMerchant(daemon());
    const b = await createMerchant(daemon());
    const file = await uploadFile(b.api, randomBytes(100));
    const pending = await b.api.post('/v1/files/', createBody(randomBytes(10)));
    const completion = {
      id: pending.json.upload.id,
      path: pending.json.upload.path,
      parts: [{ number: 1, checksum_etag: 'x', checksum_sha256_base64: null }],
    };
    for (const response of [
      await a.api.post(`/v1/files/${pending.json.id}/uploaded`, completion),
      await a.api.call('PATCH', `/v1/files/${file.id}`, { body: { name: 'hijacked' } }),
      await a.api.call('DELETE', `/v1/files/${file.id}`),
      await a.api.get(`/v1/files/${file.id}/download`),
      await a.session.get(`/v1/files/${file.id}/download`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: 'ResourceNotFound', detail: 'Not found' });
    }
    expect((await a.api.get('/v1/files/', { query: { organization_id: b.organization.id } })).json.items).toEqual([]);
    expect((await a.api.get('/v1/files/', { query: { ids: file.id } })).json.items).toEqual([]);
    const foreignCreate = await a.session.post(
      '/v1/files/',
      createBody(randomBytes(10), { organization_id: b.organization.id }),
    );
    expect(foreignCreate.status).toBe(422);
    expect((await b.api.get('/v1/files/')).json.items.map((item: { name: string }) => item.name)).toEqual(['book.pdf']);
  });

  it('lets members read and download but not upload, change or delete', async () => {
    const merchant = await createMerchant(daemon());
    const file = await uploadFile(merchant.api, randomBytes(100));
    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), merchant.organization.id, member.user.id, 'member');
    const asMember = bearerClient(daemon(), member.token);
    expect((await asMember.get('/v1/files/')).json.items.map((item: { id: string }) => item.id)).toEqual([file.id]);
    expect((await asMember.get(`/v1/files/${file.id}/download`)).status).toBe(200);
    const pending = await merchant.api.post('/v1/files/', createBody(randomBytes(10)));
    for (const response of [
      await asMember.post('/v1/files/', createBody(randomBytes(10), { organization_id: merchant.organization.id })),
      await asMember.post(`/v1/files/${pending.json.id}/uploaded`, {
        id: pending.json.upload.id,
        path: pending.json.upload.path,
        parts: [{ number: 1, checksum_etag: 'x', checksum_sha256_base64: null }],
      }),
      await asMember.call('PATCH', `/v1/files/${file.id}`, { body: { name: 'mine' } }),
      await asMember.call('DELETE', `/v1/files/${file.id}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json.error).toBe('NotPermitted');
    }
  });

  it('needs a token with the files scopes, and a token at all to download', async () => {
    const merchant = await createMerchant(daemon());
    const file = await uploadFile(merchant.api, randomBytes(100));
    const reader = await createMerchant(daemon(), { scopes: ['products:read'] });
    expect((await reader.api.get('/v1/files/')).status).toBe(403);
    const readOnly = await merchant.api.post('/v1/organization-access-tokens/', {
      comment: 'ro',
      scopes: ['files:read'],
    });
    const ro = bearerClient(daemon(), readOnly.json.token);
    expect((await ro.get(`/v1/files/${file.id}/download`)).status).toBe(200);
    expect((await ro.post('/v1/files/', createBody(randomBytes(10)))).json.error).toBe('NotPermitted');
    expect((await ro.call('DELETE', `/v1/files/${file.id}`)).status).toBe(403);
    const anonymous = new TestClient(daemon().url);
    const refused = await anonymous.get(`/v1/files/${file.id}/download`);
    expect(refused.status).toBe(401);
    expect(refused.json.error).toBe('Unauthorized');
    // A downloadable has no public URL.
    expect((await anonymous.get(`/v1/files/${file.id}/public`)).status).toBe(404);
  });

  it('serves product medias and avatars publicly, sandboxed, and nothing else', async () => {
    const merchant = await createMerchant(daemon());
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const media = await uploadFile(merchant.api, svg, {
      service: 'product_media',
      name: 'cover.svg',
      mimeType: 'image/svg+xml',
    });
    expect(media).toMatchObject({
      service: 'product_media',
      public_url: `${daemon().url}/v1/files/${media.id}/public`,
      is_uploaded: true,
    });
    const avatar = await uploadFile(merchant.api, randomBytes(500), {
      service: 'organization_avatar',
      name: 'logo.png',
      mimeType: 'image/png',
    });
    expect(avatar.public_url).toBe(`${daemon().url}/v1/files/${avatar.id}/public`);

    const anonymous = new TestClient(daemon().url);
    const served = await anonymous.get(new URL(media.public_url).pathname);
    expect(served.status).toBe(200);
    expect(served.text).toBe(svg.toString());
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['content-disposition']).toMatch(/^inline; filename="cover.svg"/);
    expect(served.headers['content-security-policy']).toContain('sandbox');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect((await anonymous.get(`/v1/files/${randomUUID()}/public`)).status).toBe(404);

    // Not before the upload is complete.
    const pending = await merchant.api.post(
      '/v1/files/',
      createBody(Buffer.from('png'), { service: 'product_media', mime_type: 'image/png' }),
    );
    expect((await anonymous.get(`/v1/files/${pending.json.id}/public`)).status).toBe(404);
    expect((await merchant.api.call('DELETE', `/v1/files/${media.id}`)).status).toBe(204);
    expect((await anonymous.get(new URL(media.public_url).pathname)).status).toBe(404);
  });

  it('refuses to delete a file a product shows or a benefit delivers', async () => {
    const merchant = await createMerchant(daemon());
    const db = daemon().core.db;
    const now = daemon().clock.now();
    const media = await uploadFile(merchant.api, randomBytes(100), { service: 'product_media' });
    const productId = randomUUID();
    await db('products').insert({
      id: productId,
      organization_id: merchant.organization.id,
      name: 'Poster',
      metadata: '{}',
      created_at: now,
    });
    await db('product_medias').insert({ product_id: productId, file_id: media.id, order: 0 });
    const shown = await merchant.api.call('DELETE', `/v1/files/${media.id}`);
    expect(shown.status).toBe(403);
    expect(shown.json).toEqual({ error: 'NotPermitted', detail: expect.stringContaining(`product ${productId}`) });

    const download = await uploadFile(merchant.api, randomBytes(100));
    const benefitId = randomUUID();
    await db('benefits').insert({
      id: benefitId,
      organization_id: merchant.organization.id,
      type: 'downloadables',
      description: 'Files',
      metadata: '{}',
      properties: JSON.stringify({ archived: {}, files: [download.id] }),
      created_at: now,
    });
    expect((await merchant.api.call('DELETE', `/v1/files/${download.id}`)).status).toBe(403);
    await db('benefits').where({ id: benefitId }).update({ deleted_at: now });
    expect((await merchant.api.call('DELETE', `/v1/files/${download.id}`)).status).toBe(204);
    expect((await merchant.api.get(`/v1/files/${media.id}/download`)).status).toBe(200);
  });

  it('answers bad input with 422s at the right place', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(100);
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [createBody(bytes, { service: 'support_case_attachment' }), ['body', 'service']],
      [createBody(bytes, { service: 'product_media', mime_type: 'application/pdf' }), ['body', 'mime_type']],
      [
        createBody(bytes, { service: 'product_media', mime_type: 'image/png', size: 10 * 1024 * 1024 + 1 }),
        ['body', 'size'],
      ],
      [
        createBody(bytes, { service: 'organization_avatar', mime_type: 'image/png', size: 1024 * 1024 + 1 }),
        ['body', 'size'],
      ],
      [createBody(bytes, { mime_type: 'text/html\r\nX-Evil: 1' }), ['body', 'mime_type']],
      [createBody(bytes, { name: 'a\nb' }), ['body', 'name']],
      [
        createBody(bytes, {
          size: 2 * 1024 ** 3,
          upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 2 * 1024 ** 3 - 1 }] },
        }),
        ['body', 'size'],
      ],
      [
        createBody(bytes, { upload: { parts: [{ number: 2, chunk_start: 0, chunk_end: 99 }] } }),
        ['body', 'upload', 'parts', 0, 'number'],
      ],
      [
        createBody(bytes, {
          upload: {
            parts: [
              { number: 1, chunk_start: 0, chunk_end: 49 },
              { number: 2, chunk_start: 60, chunk_end: 99 },
            ],
          },
        }),
        ['body', 'upload', 'parts', 1, 'chunk_start'],
      ],
      [
        createBody(bytes, { upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 98 }] } }),
        ['body', 'upload', 'parts'],
      ],
      [
        createBody(bytes, {
          size: 200 * 1024 * 1024,
          upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 200 * 1024 * 1024 - 1 }] },
        }),
        ['body', 'upload', 'parts', 0, 'chunk_end'],
      ],
      [createBody(bytes, { upload: { parts: [] } }), ['body', 'upload', 'parts']],
      [createBody(bytes, { checksum_sha256_base64: 'not-a-checksum' }), ['body', 'checksum_sha256_base64']],
      [createBody(bytes, { extra: true }), ['body', 'extra']],
      [createBody(bytes, { size: 0 }), ['body', 'size']],
    ];
    for (const [body, loc] of cases) {
      const response = await merchant.api.post('/v1/files/', body);
      expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(422);
      expect(
        response.json.detail.map((issue: { loc: unknown }) => issue.loc),
        JSON.stringify(body).slice(0, 200),
      ).toContainEqual(loc);
    }
    const file = await uploadFile(merchant.api, bytes);
    expect((await merchant.api.call('PATCH', `/v1/files/${file.id}`, { body: { name: '' } })).status).toBe(422);
    expect((await merchant.api.call('PATCH', `/v1/files/${file.id}`, { body: { size: 1 } })).status).toBe(422);
    expect((await merchant.api.post(`/v1/files/${file.id}/uploaded`, { id: 'x', path: 'y', parts: [] })).status).toBe(
      422,
    );
    expect((await merchant.api.get('/v1/files/not-a-uuid/download')).status).toBe(404);
    expect((await merchant.api.call('PATCH', '/v1/files/not-a-uuid', { body: { name: 'a' } })).status).toBe(404);
    expect((await putPart(`${daemon().url}/v1/files/${file.id}/parts/0?token=x`, bytes)).status).toBe(404);
    // A malformed id in a filter is Polar's 422 (uuid_parsing) at the parameter.
    const malformed = await merchant.api.get('/v1/files/', { query: { ids: 'not-a-uuid' } });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].loc.slice(0, 2)).toEqual(['query', 'ids']);
  });
});
