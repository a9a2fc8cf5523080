import type { Db } from '../database/index.js';
import { toBool, toDate, toDateOrNull, whereContains } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';
import type { FileService } from './schemas.js';
import { fileNameFields } from './fields.js';

export interface FileRecord {
  id: string;
  organizationId: string;
  name: string;
  /** The storage key shown on the wire (`<organization>/<file>/<name>`), never a filesystem path. */
  path: string;
  mimeType: string;
  size: number;
  service: FileService;
  version: string | null;
  uploadId: string;
  checksumSha256Base64: string | null;
  checksumSha256Hex: string | null;
  checksumEtag: string | null;
  isUploaded: boolean;
  lastModifiedAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
  deletedAt: Date | null;
}

export interface UploadPart {
  fileId: string;
  number: number;
  chunkStart: number;
  chunkEnd: number;
  checksumSha256Base64: string | null;
  /** MD5 hex of the bytes received; null until the part is uploaded. */
  etag: string | null;
  uploadedAt: Date | null;
}

// PostgreSQL refuses to compare a uuid column with anything else: malformed ids simply match nothing.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fileFromRow(row: Record<string, unknown>): FileRecord {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    name: String(row.name),
    path: String(row.path),
    mimeType: String(row.mime_type),
    size: Number(row.size),
    service: String(row.service) as FileService,
    version: row.version === null || row.version === undefined ? null : String(row.version),
    uploadId: String(row.upload_id),
    checksumSha256Base64: (row.checksum_sha256_base64 as string | null) ?? null,
    checksumSha256Hex: (row.checksum_sha256_hex as string | null) ?? null,
    checksumEtag: (row.checksum_etag as string | null) ?? null,
    isUploaded: toBool(row.is_uploaded),
    lastModifiedAt: toDateOrNull(row.last_modified_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

function partFromRow(row: Record<string, unknown>): UploadPart {
  return {
    fileId: String(row.file_id),
    number: Number(row.number),
    chunkStart: Number(row.chunk_start),
    chunkEnd: Number(row.chunk_end),
    checksumSha256Base64: (row.checksum_sha256_base64 as string | null) ?? null,
    etag: (row.etag as string | null) ?? null,
    uploadedAt: toDateOrNull(row.uploaded_at),
  };
}

export function filesRepository(db: Db) {
  return {
    async insert(file: FileRecord, parts: UploadPart[]): Promise<void> {
      await db('files').insert({
        ...fileNameFields(file),
        service: file.service,
        version: file.version,
        upload_id: file.uploadId,
        checksum_sha256_base64: file.checksumSha256Base64,
        checksum_sha256_hex: file.checksumSha256Hex,
        checksum_etag: null,
        is_uploaded: false,
        last_modified_at: null,
        created_at: file.createdAt,
        modified_at: null,
        deleted_at: null,
      });
      // Batched: SQLite allows a limited number of bound variables per statement.
      for (let start = 0; start < parts.length; start += 100) {
        await db('file_upload_parts').insert(
          parts.slice(start, start + 100).map((part) => ({
            file_id: part.fileId,
            number: part.number,
            chunk_start: part.chunkStart,
            chunk_end: part.chunkEnd,
            checksum_sha256_base64: part.checksumSha256Base64,
            etag: null,
            uploaded_at: null,
          })),
        );
      }
    },
    /** A file that has not been deleted. */
    async findLive(id: string): Promise<FileRecord | null> {
      if (!UUID.test(id)) return null;
      const row = await db('files').where({ id }).whereNull('deleted_at').first();
      return row ? fileFromRow(row) : null;
    },
    /** Files not deleted, among `ids` (the downloadables a customer holds). */
    async findLiveByIds(ids: readonly string[]): Promise<FileRecord[]> {
      const valid = ids.filter((id) => UUID.test(id));
      if (valid.length === 0) return [];
      return (await db('files').whereIn('id', valid).whereNull('deleted_at')).map(fileFromRow);
    },
    async list(organizationIds: string[], ids: string[] | undefined, options: ListOptions) {
      // Polar lists completed uploads only: a file whose upload never finished is not something to attach.
      const query = db('files')
        .whereIn('organization_id', organizationIds)
        .whereNull('deleted_at')
        .where({ is_uploaded: true });
      if (ids)
        query.whereIn(
          'id',
          ids.filter((id) => UUID.test(id)),
        );
      const page = await paginate<Record<string, unknown>>(query, options, { created_at: 'created_at', name: 'name' });
      return { items: page.rows.map(fileFromRow), pagination: page.pagination };
    },
    async parts(fileId: string): Promise<UploadPart[]> {
      const rows = await db('file_upload_parts').where({ file_id: fileId }).orderBy('number', 'asc');
      return rows.map(partFromRow);
    },
    async part(fileId: string, number: number): Promise<UploadPart | null> {
      const row = await db('file_upload_parts').where({ file_id: fileId, number }).first();
      return row ? partFromRow(row) : null;
    },
    async markPartUploaded(
      fileId: string,
      number: number,
      changes: { etag: string; checksumSha256Base64: string; at: Date },
    ): Promise<void> {
      await db('file_upload_parts')
        .where({ file_id: fileId, number })
        .update({ etag: changes.etag, checksum_sha256_base64: changes.checksumSha256Base64, uploaded_at: changes.at });
    },
    /** Marks the upload complete unless another request did first; true when this call did. */
    async markUploaded(
      id: string,
      changes: { checksumSha256Base64: string; checksumSha256Hex: string; checksumEtag: string; at: Date },
    ): Promise<boolean> {
      const updated = await db('files').where({ id, is_uploaded: false }).whereNull('deleted_at').update({
        is_uploaded: true,
        checksum_sha256_base64: changes.checksumSha256Base64,
        checksum_sha256_hex: changes.checksumSha256Hex,
        checksum_etag: changes.checksumEtag,
        last_modified_at: changes.at,
        modified_at: changes.at,
      });
      if (updated > 0) await db('file_upload_parts').where({ file_id: id }).delete();
      return updated > 0;
    },
    async update(id: string, changes: { name?: string; version?: string | null; modifiedAt: Date }): Promise<void> {
      await db('files')
        .where({ id })
        .update({
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.version !== undefined ? { version: changes.version } : {}),
          modified_at: changes.modifiedAt,
        });
    },
    async softDelete(id: string, at: Date): Promise<void> {
      await db('files').where({ id }).update({ deleted_at: at, modified_at: at });
      await db('file_upload_parts').where({ file_id: id }).delete();
    },
    /** Uploads started before `before` and never completed. */
    async abandoned(before: Date, limit: number): Promise<FileRecord[]> {
      const rows = await db('files')
        .where({ is_uploaded: false })
        .whereNull('deleted_at')
        .where('created_at', '<', before)
        .orderBy('created_at', 'asc')
        .limit(limit);
      return rows.map(fileFromRow);
    },
    /**
     * What still uses a file, looked up in the products' and benefits' tables when they exist (they belong to other
     * parts of Till and may be absent from older databases): product medias by `file_id`, downloadables benefits by
     * the file id in their properties.
     */
    async usages(file: FileRecord): Promise<string[]> {
      const found: string[] = [];
      if ((await db.schema.hasTable('product_medias')) && (await db.schema.hasColumn('product_medias', 'file_id'))) {
        const row = await db('product_medias').where({ file_id: file.id }).first();
        if (row) found.push(row.product_id ? `product ${String(row.product_id)}` : 'a product');
      }
      if ((await db.schema.hasTable('benefits')) && (await db.schema.hasColumn('benefits', 'properties'))) {
        // Cast: the column may be text (SQLite) or json/jsonb (PostgreSQL); a UUID cannot occur in it by accident.
        const query = db('benefits')
          .where({ organization_id: file.organizationId })
          .modify((benefits) => whereContains(benefits, ['CAST(properties AS TEXT)'], file.id));
        if (await db.schema.hasColumn('benefits', 'deleted_at')) query.whereNull('deleted_at');
        const row = await query.first();
        if (row) found.push(`benefit ${String(row.id)}`);
      }
      return found;
    },
  };
}

export type FilesRepository = ReturnType<typeof filesRepository>;
