import { randomBytes, randomUUID } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { fieldError, notPermitted, resourceNotFound, unauthorized, validationError } from '../polar-api/errors.js';
import type { FieldIssue } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { FilesConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import { merchantInvalidation } from '../cache/read-cache.js';
import { DomainError } from '../kernel/errors.js';
import type { Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import { iso } from '../polar-api/schemas.js';
import type { FileRecord, UploadPart } from './repository.js';
import { filesRepository } from './repository.js';
import type {
  FileCreateInput,
  FilePatchInput,
  FileReadWire,
  FileUploadCompletedInput,
  FileUploadWire,
} from './schemas.js';
import { fileStorage, PartSizeError } from './storage.js';
import { bareEtag, checkLayout, multipartEtag } from './upload-layout.js';
import { UPLOAD_URL_TTL_MS, uploadUrlSigner } from './upload-urls.js';
import { fileReadWire } from './wire.js';

/** Uploads never completed are cleared this long after they began (their URLs expired long before). */
export const ABANDONED_UPLOAD_MS = 24 * 60 * 60 * 1000;

export function createFilesService(deps: {
  db: Db;
  clock: Clock;
  config: FilesConfig;
  baseUrl: string;
  secret: string;
  changing: Changing;
}) {
  const { db, clock, baseUrl } = deps;
  const repo = filesRepository(db);
  const storage = fileStorage(deps.config.dir);
  const signer = uploadUrlSigner(deps.secret);
  const wire = (file: FileRecord) => fileReadWire(file, baseUrl);

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<FileRecord> {
    const file = await repo.findLive(id);
    if (!file) throw resourceNotFound();
    authorize(actor, file.organizationId, mode);
    return file;
  }

  function uploadWire(file: FileRecord, parts: UploadPart[]): FileUploadWire {
    const expires = new Date(Math.floor((clock.now().getTime() + UPLOAD_URL_TTL_MS) / 1000) * 1000);
    const read = wire(file);
    return {
      id: read.id,
      organization_id: read.organization_id,
      name: read.name,
      path: read.path,
      mime_type: read.mime_type,
      size: read.size,
      storage_version: null,
      checksum_etag: null,
      checksum_sha256_base64: read.checksum_sha256_base64,
      checksum_sha256_hex: read.checksum_sha256_hex,
      last_modified_at: null,
      version: read.version,
      is_uploaded: false,
      service: file.service,
      size_readable: read.size_readable,
      upload: {
        id: file.uploadId,
        path: file.path,
        parts: parts.map((part) => ({
          number: part.number,
          chunk_start: part.chunkStart,
          chunk_end: part.chunkEnd,
          checksum_sha256_base64: part.checksumSha256Base64,
          url: `${baseUrl}/v1/files/${file.id}/parts/${part.number}?token=${signer.token(file.id, part.number, expires)}`,
          expires_at: iso(expires),
          // What S3 wants with a checksummed part; Till checks the header too when it is sent.
          headers: (part.checksumSha256Base64
            ? { 'x-amz-checksum-sha256': part.checksumSha256Base64, 'x-amz-sdk-checksum-algorithm': 'SHA256' }
            : {}) as Record<string, string>,
        })),
      },
    };
  }

  return {
    wire,

    async create(actor: MerchantActor, input: FileCreateInput): Promise<FileUploadWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      checkLayout(input, deps.config.maxBytes);
      const id = randomUUID();
      const checksum = input.checksum_sha256_base64 ?? null;
      const file: FileRecord = {
        id,
        organizationId,
        name: input.name,
        path: `${organizationId}/${id}/${input.name}`,
        mimeType: input.mime_type,
        size: input.size,
        service: input.service,
        version: input.version ?? null,
        uploadId: randomBytes(24).toString('base64url'),
        checksumSha256Base64: checksum,
        checksumSha256Hex: checksum ? Buffer.from(checksum, 'base64').toString('hex') : null,
        checksumEtag: null,
        isUploaded: false,
        lastModifiedAt: null,
        createdAt: clock.now(),
        modifiedAt: null,
        deletedAt: null,
      };
      const parts: UploadPart[] = [...input.upload.parts]
        .sort((a, b) => a.number - b.number)
        .map((part) => ({
          fileId: id,
          number: part.number,
          chunkStart: part.chunk_start,
          chunkEnd: part.chunk_end,
          checksumSha256Base64: part.checksum_sha256_base64 ?? null,
          etag: null,
          uploadedAt: null,
        }));
      await transaction(db, (trx) => filesRepository(trx).insert(file, parts));
      return uploadWire(file, parts);
    },

    /**
     * One part's bytes, PUT to its presigned URL. Answers S3's ETag (the part's MD5). A part may be sent again
     * (a retry, or to replace bad bytes) until the upload is completed.
     */
    async uploadPart(input: {
      fileId: string;
      number: number;
      token: string | undefined;
      contentLength: number | null;
      checksumHeader: string | null;
      body: Readable;
    }): Promise<{ etag: string }> {
      const check = signer.check(input.token, input.fileId, input.number, clock.now());
      if (check === 'invalid') throw unauthorized('The upload URL is not valid: its signature does not match.');
      if (check === 'expired') throw notPermitted('The upload URL has expired; create the file again to get new URLs.');
      const file = await repo.findLive(input.fileId);
      const part = file ? await repo.part(file.id, input.number) : null;
      if (!file || (!part && !file.isUploaded)) throw resourceNotFound();
      if (file.isUploaded || !part)
        throw new DomainError(
          409,
          'FileAlreadyUploaded',
          'This upload is already complete; its parts can no longer change.',
        );
      const expectedSize = part.chunkEnd - part.chunkStart + 1;
      if (input.contentLength !== null && input.contentLength !== expectedSize) {
        throw fieldError(
          ['body'],
          `Part ${part.number} is ${expectedSize} bytes (chunk_start to chunk_end); the request announced ${input.contentLength}`,
          'part_size_mismatch',
        );
      }
      if (input.checksumHeader && part.checksumSha256Base64 && input.checksumHeader !== part.checksumSha256Base64) {
        throw fieldError(
          ['header', 'x-amz-checksum-sha256'],
          'The checksum header differs from the one given for this part at creation',
          'checksum_mismatch',
        );
      }
      let written;
      try {
        written = await storage.writePart(file.id, part.number, input.body, expectedSize);
      } catch (error) {
        if (error instanceof PartSizeError) {
          throw fieldError(['body'], `Part ${part.number} must be exactly ${expectedSize} bytes`, 'part_size_mismatch');
        }
        throw error;
      }
      const expected = part.checksumSha256Base64 ?? input.checksumHeader;
      if (expected && expected !== written.sha256Base64) {
        throw fieldError(
          ['body'],
          `The SHA-256 of part ${part.number} does not match its checksum_sha256_base64`,
          'checksum_mismatch',
        );
      }
      await repo.markPartUploaded(file.id, part.number, {
        etag: written.md5Hex,
        checksumSha256Base64: written.sha256Base64,
        at: clock.now(),
      });
      return { etag: written.md5Hex };
    },

    /**
     * Joins the parts into the file, checks it against what was announced, and makes it available. Completing an
     * already completed upload answers the file again, so a retried request is harmless.
     */
    async complete(actor: MerchantActor, id: string, input: FileUploadCompletedInput): Promise<FileReadWire> {
      const file = await owned(actor, id, 'write');
      if (file.isUploaded) return wire(file);
      if (input.id !== file.uploadId)
        throw fieldError(['body', 'id'], 'This is not the upload id of this file (upload.id from the creation)');
      if (input.path !== file.path)
        throw fieldError(['body', 'path'], 'This is not the path of this file (upload.path from the creation)');
      const stored = await repo.parts(file.id);
      const given = new Map(input.parts.map((part, index) => [part.number, { part, index }]));
      const issues: FieldIssue[] = [];
      if (
        given.size !== input.parts.length ||
        given.size !== stored.length ||
        stored.some((part) => !given.has(part.number))
      ) {
        issues.push({
          loc: ['body', 'parts'],
          msg: `List each of the ${stored.length} parts exactly once`,
          type: 'value_error',
        });
      }
      for (const part of stored) {
        const entry = given.get(part.number);
        if (!entry) continue;
        const loc = ['body', 'parts', entry.index];
        if (!part.etag) issues.push({ loc, msg: `Part ${part.number} has not been uploaded`, type: 'part_missing' });
        else if (bareEtag(entry.part.checksum_etag) !== part.etag)
          issues.push({
            loc: [...loc, 'checksum_etag'],
            msg: `Part ${part.number}'s ETag does not match the bytes received`,
            type: 'checksum_mismatch',
          });
        else if (entry.part.checksum_sha256_base64 && entry.part.checksum_sha256_base64 !== part.checksumSha256Base64) {
          issues.push({
            loc: [...loc, 'checksum_sha256_base64'],
            msg: `Part ${part.number}'s SHA-256 does not match the bytes received`,
            type: 'checksum_mismatch',
          });
        }
      }
      if (issues.length > 0) throw validationError(issues.slice(0, 20));

      const assembled = await storage.assemble(
        file.organizationId,
        file.id,
        stored.map((part) => ({ number: part.number, etag: part.etag! })),
      );
      const sha256Base64 = assembled.sha256.toString('base64');
      if (assembled.size !== file.size || (file.checksumSha256Base64 && file.checksumSha256Base64 !== sha256Base64)) {
        await storage.discard(assembled);
        throw fieldError(
          ['body'],
          assembled.size !== file.size
            ? `The parts hold ${assembled.size} bytes but the file is ${file.size}`
            : "The file's SHA-256 does not match the checksum_sha256_base64 given at creation",
          'checksum_mismatch',
        );
      }
      await storage.commit(file.organizationId, file.id, assembled);
      const now = clock.now();
      const changes = {
        checksumSha256Base64: sha256Base64,
        checksumSha256Hex: assembled.sha256.toString('hex'),
        checksumEtag: multipartEtag(stored.map((part) => part.etag!)),
        at: now,
      };
      // Product wires embed their media files: every change to a file drops its organization's cached catalog.
      const won = await deps.changing((trx, announce) => {
        announce([merchantInvalidation(file.organizationId)]);
        return filesRepository(trx).markUploaded(file.id, changes);
      });
      await storage.removeUploads(file.id);
      if (!won) {
        // Another completion (or a deletion) got there first; answer what the database now says.
        const current = await repo.findLive(file.id);
        if (!current) {
          await storage.removeObject(file.organizationId, file.id);
          throw resourceNotFound();
        }
        return wire(current);
      }
      return wire({ ...file, ...changes, isUploaded: true, lastModifiedAt: now, modifiedAt: now });
    },

    async list(
      actor: MerchantActor,
      query: { organization_id?: string[]; ids?: string[]; page: number; limit: number },
    ): Promise<Page<FileReadWire>> {
      const page = await repo.list(organizationFilter(actor, query.organization_id), query.ids, {
        page: query.page,
        limit: query.limit,
        sorting: ['-created_at'],
      });
      return { items: page.items.map(wire), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: FilePatchInput): Promise<FileReadWire> {
      const file = await owned(actor, id, 'write');
      const changes = {
        ...(input.name ? { name: input.name } : {}),
        ...(input.version !== undefined ? { version: input.version } : {}),
        modifiedAt: clock.now(),
      };
      await deps.changing((trx, announce) => {
        announce([merchantInvalidation(file.organizationId)]);
        return filesRepository(trx).update(file.id, changes);
      });
      return wire({ ...file, ...changes });
    },

    /**
     * Refused (403, Polar's "not deletable") while a product shows the file or a benefit delivers it. Otherwise the
     * row is soft-deleted, so references never dangle, and the bytes are removed.
     */
    async delete(actor: MerchantActor, id: string): Promise<void> {
      const file = await owned(actor, id, 'write');
      const usages = await repo.usages(file);
      if (usages.length > 0)
        throw notPermitted(`This file is in use (${usages.join(', ')}); remove it there before deleting it.`);
      await deps.changing((trx, announce) => {
        announce([merchantInvalidation(file.organizationId)]);
        return filesRepository(trx).softDelete(file.id, clock.now());
      });
      await storage.removeUploads(file.id);
      await storage.removeObject(file.organizationId, file.id);
    },

    /** A completed file's bytes for a merchant who may read it. */
    async download(actor: MerchantActor, id: string): Promise<{ file: FileRecord; stream: ReadStream; size: number }> {
      return openUploaded(await owned(actor, id, 'read'));
    },

    /** Product medias and avatars are public, as in Polar; downloadables never are. */
    async openPublic(id: string): Promise<{ file: FileRecord; stream: ReadStream; size: number }> {
      const file = await repo.findLive(id);
      if (!file || file.service === 'downloadable') throw resourceNotFound();
      return openUploaded(file);
    },

    /** Clears uploads that were started and never completed: their staged parts and the file rows. */
    async sweepAbandoned(): Promise<number> {
      const stale = await repo.abandoned(new Date(clock.now().getTime() - ABANDONED_UPLOAD_MS), 500);
      for (const file of stale) {
        await repo.softDelete(file.id, clock.now());
        await storage.removeUploads(file.id);
      }
      return stale.length;
    },
  };

  async function openUploaded(file: FileRecord) {
    if (!file.isUploaded) throw resourceNotFound('This file has not been uploaded yet.');
    const opened = await storage.open(file.organizationId, file.id);
    if (!opened) throw resourceNotFound('The bytes of this file are missing from the files directory.');
    return { file, ...opened };
  }
}

export type FilesService = ReturnType<typeof createFilesService>;
