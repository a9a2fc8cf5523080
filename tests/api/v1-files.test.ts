import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { partsOf, putPart, sha256Base64, uploadFile } from '../helpers/files.js';
import { createMerchant, type Merchant } from '../helpers/v1.js';

// Polar's three-step upload against Till: POST /v1/files/ hands out presigned part URLs on the daemon itself, the
// parts are PUT there (in any order), and POST /v1/files/{id}/uploaded joins and checks them.

const daemon = useTestDaemon();
const MiB = 1024 * 1024;

async function create(merchant: Merchant, bytes: Buffer, overrides: Record<string, unknown> = {}, partSize = MiB) {
  const response = await merchant.api.post('/v1/files/', {
    service: 'downloadable',
    name: 'Guide.pdf',
    mime_type: 'application/pdf',
    size: bytes.length,
    checksum_sha256_base64: sha256Base64(bytes),
    upload: { parts: partsOf(bytes, partSize) },
    ...overrides,
  });
  expect(response.status, response.text).toBe(201);
  return response.json;
}

async function putAll(upload: any, bytes: Buffer) {
  const parts = [];
  for (const part of [...upload.upload.parts].reverse()) {
    const put = await putPart(part.url, bytes.subarray(part.chunk_start, part.chunk_end + 1), part.headers);
    expect(put.status, put.text).toBe(200);
    parts.unshift({
      number: part.number,
      checksum_etag: put.headers.etag as string,
      checksum_sha256_base64: part.checksum_sha256_base64,
    });
  }
  return parts;
}

describe('/v1/files upload', () => {
  it('uploads a multi-part file in three steps, parts in any order, and serves it back byte for byte', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(2 * MiB + 12345);
    const upload = await create(merchant, bytes, { version: '1.0' });
    expect(upload).toMatchObject({
      organization_id: merchant.organization.id,
      name: 'Guide.pdf',
      path: `${merchant.organization.id}/${upload.id}/Guide.pdf`,
      size: bytes.length,
      size_readable: '2.0 MB',
      service: 'downloadable',
      is_uploaded: false,
      version: '1.0',
      checksum_sha256_base64: sha256Base64(bytes),
      checksum_sha256_hex: createHash('sha256').update(bytes).digest('hex'),
      storage_version: null,
      checksum_etag: null,
      last_modified_at: null,
    });
    expect(upload.upload.parts).toHaveLength(3);
    expect(upload.upload.parts[2]).toMatchObject({
      number: 3,
      chunk_start: 2 * MiB,
      chunk_end: bytes.length - 1,
      expires_at: '2026-11-21T13:00:00.000Z',
    });
    expect(upload.upload.parts[0].url).toMatch(new RegExp(`^${daemon().url}/v1/files/${upload.id}/parts/1\\?token=`));
    expect(upload.upload.parts[0].headers).toEqual({
      'x-amz-checksum-sha256': upload.upload.parts[0].checksum_sha256_base64,
      'x-amz-sdk-checksum-algorithm': 'SHA256',
    });

    const parts = await putAll(upload, bytes);
    const md5s = parts.map((part) => part.checksum_etag.replace(/"/g, ''));
    expect(md5s[0]).toBe(createHash('md5').update(bytes.subarray(0, MiB)).digest('hex'));
    // Not listed until completed.
    expect((await merchant.api.get('/v1/files/')).json.pagination.total_count).toBe(0);

    const completed = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.upload.path,
      parts,
    });
    expect(completed.status, completed.text).toBe(200);
    const multipart = createHash('md5')
      .update(Buffer.concat(md5s.map((hex) => Buffer.from(hex, 'hex'))))
      .digest('hex');
    expect(completed.json).toMatchObject({
      id: upload.id,
      is_uploaded: true,
      checksum_etag: `${multipart}-3`,
      last_modified_at: expect.any(String),
      flagged_malicious_at: null,
      created_at: expect.any(String),
    });
    expect(completed.json.public_url).toBeUndefined();

    const again = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.upload.path,
      parts,
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(completed.json);

    const listed = await merchant.api.get('/v1/files/');
    expect(listed.json).toEqual({ items: [completed.json], pagination: { total_count: 1, max_page: 1 } });

    const download = await merchant.api.get(`/v1/files/${upload.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-length']).toBe(String(bytes.length));
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="Guide.pdf"; filename*=UTF-8''Guide.pdf`,
    );
    expect(download.headers['x-content-type-options']).toBe('nosniff');
    const raw = await fetch(`${daemon().url}/v1/files/${upload.id}/download`, {
      headers: { authorization: `Bearer ${merchant.token}` },
    });
    expect(Buffer.from(await raw.arrayBuffer()).equals(bytes)).toBe(true);

    // Staged parts are gone once the file is assembled.
    expect(existsSync(join(daemon().config.files.dir, 'uploads', upload.id))).toBe(false);
    expect(readdirSync(join(daemon().config.files.dir, 'objects', merchant.organization.id))).toEqual([upload.id]);
  });

  it('refuses a part whose bytes do not match its checksum or size, and takes the part again', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(MiB + 10);
    const upload = await create(merchant, bytes);
    const [first, second] = upload.upload.parts;
    const wrong = Buffer.from(bytes.subarray(0, MiB));
    wrong[0] ^= 0xff;
    const mismatch = await putPart(first.url, wrong);
    expect(mismatch.status).toBe(422);
    expect(mismatch.json.detail[0]).toMatchObject({ loc: ['body'], type: 'checksum_mismatch' });
    const header = await putPart(first.url, bytes.subarray(0, MiB), { 'x-amz-checksum-sha256': sha256Base64(wrong) });
    expect(header.status).toBe(422);
    const short = await putPart(second.url, bytes.subarray(MiB, MiB + 5));
    expect(short.status).toBe(422);
    expect(short.json.detail[0].type).toBe('part_size_mismatch');
    const long = await putPart(second.url, randomBytes(11));
    expect(long.status).toBe(422);

    // Completing with a part missing, or with another part's ETag, is refused and leaves the upload open.
    const ok = await putPart(first.url, bytes.subarray(0, MiB));
    expect(ok.status).toBe(200);
    const base = { id: upload.upload.id, path: upload.upload.path };
    const missing = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      parts: [
        { number: 1, checksum_etag: ok.headers.etag, checksum_sha256_base64: null },
        { number: 2, checksum_etag: 'x', checksum_sha256_base64: null },
      ],
    });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'parts', 1], type: 'part_missing' });
    const put2 = await putPart(second.url, bytes.subarray(MiB));
    expect(put2.status).toBe(200);
    const swapped = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      parts: [
        { number: 1, checksum_etag: put2.headers.etag, checksum_sha256_base64: null },
        { number: 2, checksum_etag: put2.headers.etag, checksum_sha256_base64: null },
      ],
    });
    expect(swapped.status).toBe(422);
    expect(swapped.json.detail[0].loc).toEqual(['body', 'parts', 0, 'checksum_etag']);
    const partial = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      parts: [{ number: 1, checksum_etag: ok.headers.etag, checksum_sha256_base64: null }],
    });
    expect(partial.status).toBe(422);
    const wrongId = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      id: 'another-upload',
      parts: [{ number: 1, checksum_etag: 'a', checksum_sha256_base64: null }],
    });
    expect(wrongId.json.detail[0].loc).toEqual(['body', 'id']);
    const wrongPath = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      path: 'elsewhere/x',
      parts: [{ number: 1, checksum_etag: 'a', checksum_sha256_base64: null }],
    });
    expect(wrongPath.json.detail[0].loc).toEqual(['body', 'path']);

    const done = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      ...base,
      // Unquoted ETags are accepted as well as the quoted ones S3 clients pass along.
      parts: [
        {
          number: 1,
          checksum_etag: String(ok.headers.etag).replace(/"/g, ''),
          checksum_sha256_base64: first.checksum_sha256_base64,
        },
        { number: 2, checksum_etag: put2.headers.etag, checksum_sha256_base64: null },
      ],
    });
    expect(done.status, done.text).toBe(200);
    // A completed upload's parts cannot change any more.
    expect((await putPart(first.url, bytes.subarray(0, MiB))).status).toBe(409);
  });

  it('refuses a file whose whole checksum does not match, and leaves it not uploaded', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(3000);
    const upload = await merchant.api.post('/v1/files/', {
      service: 'downloadable',
      name: 'a.bin',
      mime_type: 'application/octet-stream',
      size: bytes.length,
      checksum_sha256_base64: sha256Base64(randomBytes(8)),
      upload: { parts: partsOf(bytes, 1000, false) },
    });
    expect(upload.status).toBe(201);
    expect(upload.json.upload.parts[0].headers).toEqual({});
    const parts = await putAll(upload.json, bytes);
    const completed = await merchant.api.post(`/v1/files/${upload.json.id}/uploaded`, {
      id: upload.json.upload.id,
      path: upload.json.upload.path,
      parts,
    });
    expect(completed.status).toBe(422);
    expect(completed.json.detail[0]).toMatchObject({ loc: ['body'], type: 'checksum_mismatch' });
    expect((await merchant.api.get('/v1/files/')).json.items).toEqual([]);
    expect((await merchant.api.get(`/v1/files/${upload.json.id}/download`)).status).toBe(404);
    expect(readdirSync(join(daemon().config.files.dir, 'objects', merchant.organization.id))).toEqual([]);
  });

  it('accepts only the URL as signed: forged, swapped and expired part URLs are refused in Polar’s shape', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(2000);
    const upload = await create(merchant, bytes, {}, 1000);
    const [first, second] = upload.upload.parts;
    const token = new URL(first.url).searchParams.get('token')!;
    const forged = `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    for (const url of [
      first.url.replace(/token=.*/, `token=${forged}`),
      first.url.replace(/\?.*/, ''),
      second.url.replace(/token=.*/, `token=${token}`),
      first.url.replace(/token=(\d+)/, (_: string, seconds: string) => `token=${Number(seconds) + 3600}`),
    ]) {
      const refused = await putPart(url, bytes.subarray(0, 1000));
      expect(refused.status, url).toBe(401);
      expect(refused.json).toEqual({ error: 'Unauthorized', detail: expect.stringContaining('signature') });
    }
    const unknown = await putPart(
      first.url.replace(upload.id, '00000000-0000-4000-8000-000000000000'),
      bytes.subarray(0, 1000),
    );
    expect(unknown.status).toBe(401);

    daemon().clock.advance(60 * 60 * 1000 + 1000);
    const expired = await putPart(first.url, bytes.subarray(0, 1000));
    expect(expired.status).toBe(403);
    expect(expired.json).toEqual({ error: 'NotPermitted', detail: expect.stringContaining('expired') });
  });

  it('clears uploads abandoned for a day', async () => {
    const merchant = await createMerchant(daemon());
    const bytes = randomBytes(2000);
    const upload = await create(merchant, bytes, {}, 1000);
    expect((await putPart(upload.upload.parts[0].url, bytes.subarray(0, 1000))).status).toBe(200);
    expect(existsSync(join(daemon().config.files.dir, 'uploads', upload.id))).toBe(true);
    daemon().clock.advance(25 * 60 * 60 * 1000);
    expect(await daemon().core.files.sweepAbandoned()).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(daemon().config.files.dir, 'uploads', upload.id))).toBe(false);
    const completed = await merchant.api.post(`/v1/files/${upload.id}/uploaded`, {
      id: upload.upload.id,
      path: upload.upload.path,
      parts: [{ number: 1, checksum_etag: 'x', checksum_sha256_base64: null }],
    });
    expect(completed.status).toBe(404);
  });

  it('renames a file and sets its version; deleting removes it and its bytes', async () => {
    const merchant = await createMerchant(daemon());
    const file = await uploadFile(merchant.api, randomBytes(1000), { name: 'draft.zip', mimeType: 'application/zip' });
    const patched = await merchant.api.call('PATCH', `/v1/files/${file.id}`, {
      body: { name: 'Final édition.zip', version: '2.1' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ id: file.id, name: 'Final édition.zip', version: '2.1', path: file.path });
    const unchanged = await merchant.api.call('PATCH', `/v1/files/${file.id}`, { body: {} });
    expect(unchanged.json).toMatchObject({ name: 'Final édition.zip', version: '2.1' });
    const download = await merchant.api.get(`/v1/files/${file.id}/download`);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="Final _dition.zip"; filename*=UTF-8''Final%20%C3%A9dition.zip`,
    );

    const deleted = await merchant.api.call('DELETE', `/v1/files/${file.id}`);
    expect(deleted.status).toBe(204);
    expect((await merchant.api.call('DELETE', `/v1/files/${file.id}`)).status).toBe(404);
    expect((await merchant.api.get(`/v1/files/${file.id}/download`)).status).toBe(404);
    expect((await merchant.api.get('/v1/files/', { query: { ids: file.id } })).json.items).toEqual([]);
    expect(existsSync(join(daemon().config.files.dir, 'objects', merchant.organization.id, file.id))).toBe(false);
  });
});
