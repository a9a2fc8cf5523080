import type { FileRecord } from './repository.js';

/** A file's id, owner, name, storage path, type and size, under the names the `files` table and Polar's File share. */
export function fileNameFields(file: FileRecord) {
  return {
    id: file.id,
    organization_id: file.organizationId,
    name: file.name,
    path: file.path,
    mime_type: file.mimeType,
    size: file.size,
  };
}
