import { FileUpload$inboundSchema } from '@polar-sh/sdk/models/components/fileupload.js';
import {
  FileRead$inboundSchema,
  ListResourceFileRead$inboundSchema,
} from '@polar-sh/sdk/models/components/listresourcefileread.js';
import { HTTPValidationError } from '@polar-sh/sdk/models/errors/httpvalidationerror.js';
import { NotPermitted } from '@polar-sh/sdk/models/errors/notpermitted.js';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestDaemon } from '../helpers/daemon.js';
import { putPart, sha256Base64 } from '../helpers/files.js';
import { addMember, signedInUser } from '../helpers/organizations.js';
import { createMerchant, polarSdk } from '../helpers/v1.js';

// @polar-sh/sdk 0.47.1's files operations against /v1, each answer parsed by the SDK's own strict schemas, then the
// raw JSON checked once more against FileUpload / FileRead as a reviewer would.

const daemon = useTestDaemon();

async function sdkUpload(
  sdk: ReturnType<typeof polarSdk>,
  bytes: Buffer,
  service: 'downloadable' | 'product_media' = 'downloadable',
) {
  const half = Math.ceil(bytes.length / 2);
  const chunks = [bytes.subarray(0, half), bytes.subarray(half)];
  const upload = await sdk.files.create({
    service,
    name: service === 'downloadable' ? 'manual.pdf' : 'cover.webp',
    mimeType: service === 'downloadable' ? 'application/pdf' : 'image/webp',
    size: bytes.length,
    checksumSha256Base64: sha256Base64(bytes),
    upload: {
      parts: chunks.map((chunk, index) => ({
        number: index + 1,
        chunkStart: index * half,
        chunkEnd: index * half + chunk.length - 1,
        checksumSha256Base64: sha256Base64(chunk),
      })),
    },
  });
  const parts = [];
  for (const part of upload.upload.parts) {
    const put = await putPart(part.url, chunks[part.number - 1]!, part.headers ?? {});
    expect(put.status, put.text).toBe(200);
    parts.push({
      number: part.number,
      checksumEtag: String(put.headers.etag),
      checksumSha256Base64: part.checksumSha256Base64 ?? null,
    });
  }
  const file = await sdk.files.uploaded({
    id: upload.id,
    fileUploadCompleted: { id: upload.upload.id, path: upload.upload.path, parts },
  });
  return { upload, file };
}

describe('@polar-sh/sdk files', () => {
  it('creates, uploads, completes, lists, updates and deletes files', async () => {
    const { sdk, organization, api } = await createMerchant(daemon());
    const bytes = randomBytes(300_000);
    const { upload, file } = await sdkUpload(sdk, bytes);
    expect(upload).toMatchObject({
      organizationId: organization.id,
      isUploaded: false,
      service: 'downloadable',
      storageVersion: null,
      lastModifiedAt: null,
      sizeReadable: '293.0 KB',
    });
    expect(upload.upload.parts[0]!.expiresAt).toBeInstanceOf(Date);
    expect(file).toMatchObject({
      id: upload.id,
      service: 'downloadable',
      isUploaded: true,
      checksumSha256Hex: createHash('sha256').update(bytes).digest('hex'),
    });
    expect((file as { lastModifiedAt: Date }).lastModifiedAt).toBeInstanceOf(Date);

    const { file: media } = await sdkUpload(sdk, randomBytes(2048), 'product_media');
    expect(media).toMatchObject({ service: 'product_media', publicUrl: `${daemon().url}/v1/files/${media.id}/public` });

    const seen = [];
    for await (const page of await sdk.files.list({ limit: 1 })) seen.push(...page.result.items.map((item) => item.id));
    expect(seen.sort()).toEqual([file.id, media.id].sort());
    const byId = await sdk.files.list({ ids: [file.id], organizationId: organization.id });
    expect(byId.result.items.map((item) => item.id)).toEqual([file.id]);

    const updated = await sdk.files.update({ id: file.id, filePatch: { name: 'Manual v2.pdf', version: '2' } });
    expect(updated).toMatchObject({ id: file.id, name: 'Manual v2.pdf', version: '2' });

    // The raw answers satisfy the SDK's models exactly, not only through the operation wrappers.
    const raw = await api.post('/v1/files/', {
      service: 'downloadable',
      name: 'x',
      mime_type: 'text/plain',
      size: 1,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 0 }] },
    });
    expect(FileUpload$inboundSchema.safeParse(raw.json).success).toBe(true);
    for (const item of (await api.get('/v1/files/')).json.items)
      expect(FileRead$inboundSchema.safeParse(item).success, JSON.stringify(item)).toBe(true);
    expect(ListResourceFileRead$inboundSchema.safeParse((await api.get('/v1/files/')).json).success).toBe(true);

    await sdk.files.delete({ id: media.id });
    await expect(sdk.files.delete({ id: media.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await sdk.files.list({})).result.items.map((item) => item.id)).toEqual([file.id]);
  });

  it('surfaces refusals as the SDK’s typed errors', async () => {
    const merchant = await createMerchant(daemon());
    const other = await createMerchant(daemon());
    const { file } = await sdkUpload(other.sdk, randomBytes(1000));
    await expect(merchant.sdk.files.update({ id: file.id, filePatch: { name: 'mine' } })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      merchant.sdk.files.create({
        service: 'product_media',
        name: 'a.pdf',
        mimeType: 'application/pdf',
        size: 10,
        upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 9 }] },
      }),
    ).rejects.toBeInstanceOf(HTTPValidationError);

    const member = await signedInUser(daemon(), 'Reader');
    await addMember(daemon(), other.organization.id, member.user.id, 'member');
    const asMember = polarSdk(daemon(), member.token);
    expect((await asMember.files.list({})).result.items.map((item) => item.id)).toEqual([file.id]);
    await expect(asMember.files.delete({ id: file.id })).rejects.toBeInstanceOf(NotPermitted);

    const upload = await other.sdk.files.create({
      service: 'downloadable',
      name: 'b',
      mimeType: 'text/plain',
      size: 4,
      checksumSha256Base64: sha256Base64(Buffer.from('nope')),
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 3 }] },
    });
    const put = await putPart(upload.upload.parts[0]!.url, Buffer.from('abcd'));
    const completion = {
      id: upload.upload.id,
      path: upload.upload.path,
      parts: [{ number: 1, checksumEtag: String(put.headers.etag), checksumSha256Base64: null }],
    };
    await expect(other.sdk.files.uploaded({ id: upload.id, fileUploadCompleted: completion })).rejects.toBeInstanceOf(
      HTTPValidationError,
    );
  });
});
