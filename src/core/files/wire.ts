import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { FileRecord } from './repository.js';
import { fileNameFields } from './fields.js';
import type { FileReadWire } from './schemas.js';
import { sizeReadable } from './schemas.js';

/** What every wire of a file carries (Polar's File and FileDownload alike): the file as stored and checksummed. */
export function fileFields(file: FileRecord) {
  return {
    ...fileNameFields(file),
    storage_version: null,
    checksum_etag: file.checksumEtag,
    checksum_sha256_base64: file.checksumSha256Base64,
    checksum_sha256_hex: file.checksumSha256Hex,
    last_modified_at: isoOrNull(file.lastModifiedAt),
    version: file.version,
    is_uploaded: file.isUploaded,
    size_readable: sizeReadable(file.size),
  };
}

export function fileReadWire(file: FileRecord, baseUrl: string): FileReadWire {
  const base = { ...fileFields(file), created_at: iso(file.createdAt) };
  if (file.service === 'downloadable') return { ...base, service: 'downloadable', flagged_malicious_at: null };
  return { ...base, service: file.service, public_url: publicFileUrl(baseUrl, file.id) };
}

/** Where product medias and avatars are served to anyone, as Polar serves them from a public bucket. */
export function publicFileUrl(baseUrl: string, fileId: string): string {
  return `${baseUrl}/v1/files/${fileId}/public`;
}
