import { createHash, randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { TestClient } from './http.js';

export const sha256Base64 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

/** Polar's `upload.parts` for a buffer cut into `partSize` chunks, each with its checksum. */
export function partsOf(bytes: Buffer, partSize: number, withChecksums = true) {
  const parts = [];
  for (let start = 0, number = 1; start < bytes.length; start += partSize, number++) {
    const chunk = bytes.subarray(start, Math.min(start + partSize, bytes.length));
    parts.push({
      number,
      chunk_start: start,
      chunk_end: start + chunk.length - 1,
      ...(withChecksums ? { checksum_sha256_base64: sha256Base64(chunk) } : {}),
    });
  }
  return parts;
}

/** PUTs bytes to a presigned part URL as a browser or curl would: no bearer, the URL is the credential. */
export async function putPart(url: string, body: Buffer, headers: Record<string, string> = {}) {
  const response = await request(url, { method: 'PUT', body, headers });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    json: text ? (JSON.parse(text) as any) : undefined,
  };
}

export interface UploadOptions {
  service?: 'downloadable' | 'product_media' | 'organization_avatar';
  name?: string;
  mimeType?: string;
  partSize?: number;
  organizationId?: string;
}

/** The whole three-step upload; answers the completed FileRead. Other suites use it to get a file to attach. */
export async function uploadFile(api: TestClient, bytes: Buffer = randomBytes(4096), options: UploadOptions = {}) {
  const service = options.service ?? 'downloadable';
  const created = await api.post('/v1/files/', {
    ...(options.organizationId ? { organization_id: options.organizationId } : {}),
    service,
    name: options.name ?? (service === 'downloadable' ? 'book.pdf' : 'cover.png'),
    mime_type: options.mimeType ?? (service === 'downloadable' ? 'application/pdf' : 'image/png'),
    size: bytes.length,
    checksum_sha256_base64: sha256Base64(bytes),
    upload: { parts: partsOf(bytes, options.partSize ?? 1024 * 1024) },
  });
  if (created.status !== 201) throw new Error(`file create failed: ${created.status} ${created.text}`);
  const parts = [];
  for (const part of created.json.upload.parts) {
    const put = await putPart(part.url, bytes.subarray(part.chunk_start, part.chunk_end + 1), part.headers);
    if (put.status !== 200) throw new Error(`part ${part.number} failed: ${put.status} ${put.text}`);
    parts.push({
      number: part.number,
      checksum_etag: String(put.headers.etag),
      checksum_sha256_base64: part.checksum_sha256_base64,
    });
  }
  const completed = await api.post(`/v1/files/${created.json.id}/uploaded`, {
    id: created.json.upload.id,
    path: created.json.upload.path,
    parts,
  });
  if (completed.status !== 200) throw new Error(`file completion failed: ${completed.status} ${completed.text}`);
  return completed.json;
}
