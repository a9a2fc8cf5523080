import { z } from 'zod';
import { pageQuery, repeated, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource, organizationIdInput } from '../polar-api/schemas.js';

/**
 * Polar's file shapes (2026-04). Support case attachments exist in Polar's API but not in SDK 0.47 nor in Till, so the
 * discriminator knows three services.
 */
export const FILE_SERVICES = ['downloadable', 'product_media', 'organization_avatar'] as const;
export type FileService = (typeof FILE_SERVICES)[number];

/** Polar's limits for images (product medias 10 MB, avatars 1 MB); downloadables are limited by TILL_FILES_MAX_BYTES. */
export const IMAGE_LIMITS: Record<Exclude<FileService, 'downloadable'>, number> = {
  product_media: 10 * 1024 * 1024,
  organization_avatar: 1024 * 1024,
};
/** S3 allows 10,000 parts per upload. */
export const MAX_PARTS = 10_000;
/** One PUT carries at most this much; the CLI sends 8 MiB parts, Polar's dashboard about 10 MB. */
export const MAX_PART_BYTES = 128 * 1024 * 1024;

export const fileServiceTypesSchema = z.enum(FILE_SERVICES).meta({ id: 'FileServiceTypes' });

const sha256Base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'Input should be the base64 encoding of a SHA-256 digest (44 characters)');
// RFC 6838 type/subtype: the value is sent back as Content-Type, so nothing that could smuggle parameters or headers.
const mimeType = z
  .string()
  .max(255)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/,
    'Input should be a MIME type such as application/pdf',
  );
const imageMimeType = z
  .string()
  .regex(
    /^image\/(jpeg|png|gif|webp|svg\+xml)$/,
    "String should match pattern '^image\\/(jpeg|png|gif|webp|svg\\+xml)$'",
  );
// Shown in Content-Disposition and listings: no control characters.
const fileName = z
  .string()
  .min(1)
  .max(255)
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), { message: 'File names cannot contain control characters' });
const version = z.string().max(255).nullable().optional();

export const s3FileCreatePartSchema = z
  .strictObject({
    number: z.number().int().min(1).max(MAX_PARTS),
    chunk_start: z.number().int().min(0),
    chunk_end: z.number().int().min(0),
    checksum_sha256_base64: sha256Base64.nullable().optional(),
  })
  .meta({ id: 'S3FileCreatePart' });

export const s3FileCreateMultipartSchema = z
  .strictObject({ parts: z.array(s3FileCreatePartSchema).min(1).max(MAX_PARTS) })
  .meta({ id: 'S3FileCreateMultipart' });

const createBase = {
  organization_id: organizationIdInput,
  name: fileName,
  mime_type: mimeType,
  size: z.number().int().min(1),
  checksum_sha256_base64: sha256Base64.nullable().optional(),
  upload: s3FileCreateMultipartSchema,
  version,
};

export const downloadableFileCreateSchema = z
  .strictObject({ ...createBase, service: z.literal('downloadable') })
  .meta({ id: 'DownloadableFileCreate' });
export const productMediaFileCreateSchema = z
  .strictObject({
    ...createBase,
    service: z.literal('product_media'),
    mime_type: imageMimeType,
    size: z.number().int().min(1).max(IMAGE_LIMITS.product_media),
  })
  .meta({ id: 'ProductMediaFileCreate' });
export const organizationAvatarFileCreateSchema = z
  .strictObject({
    ...createBase,
    service: z.literal('organization_avatar'),
    mime_type: imageMimeType,
    size: z.number().int().min(1).max(IMAGE_LIMITS.organization_avatar),
  })
  .meta({ id: 'OrganizationAvatarFileCreate' });

export const fileCreateSchema = z
  .discriminatedUnion('service', [
    downloadableFileCreateSchema,
    productMediaFileCreateSchema,
    organizationAvatarFileCreateSchema,
  ])
  .meta({ id: 'FileCreate' });
export type FileCreateInput = z.output<typeof fileCreateSchema>;

/** The fields every file shape shares (FileRead's kinds, FileDownload). */
export const fileBase = {
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  path: z.string(),
  mime_type: z.string(),
  size: z.number().int(),
  storage_version: z.string().nullable(),
  checksum_etag: z.string().nullable(),
  checksum_sha256_base64: z.string().nullable(),
  checksum_sha256_hex: z.string().nullable(),
  last_modified_at: datetime.nullable(),
  version: z.string().nullable(),
};
const readBase = { ...fileBase, is_uploaded: z.boolean(), created_at: datetime, size_readable: z.string() };

export const downloadableFileReadSchema = z
  .object({ ...readBase, service: z.literal('downloadable'), flagged_malicious_at: datetime.nullable() })
  .meta({ id: 'DownloadableFileRead' });
export const productMediaFileReadSchema = z
  .object({ ...readBase, service: z.literal('product_media'), public_url: z.string() })
  .meta({ id: 'ProductMediaFileRead' });
export const organizationAvatarFileReadSchema = z
  .object({ ...readBase, service: z.literal('organization_avatar'), public_url: z.string() })
  .meta({ id: 'OrganizationAvatarFileRead' });
export const fileReadSchema = z
  .discriminatedUnion('service', [
    downloadableFileReadSchema,
    productMediaFileReadSchema,
    organizationAvatarFileReadSchema,
  ])
  .meta({ id: 'FileRead' });
export type FileReadWire = z.infer<typeof fileReadSchema>;

export const s3FileUploadPartSchema = z
  .object({
    number: z.number().int(),
    chunk_start: z.number().int(),
    chunk_end: z.number().int(),
    checksum_sha256_base64: z.string().nullable(),
    url: z.string(),
    expires_at: datetime,
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: 'S3FileUploadPart' });
export const fileUploadSchema = z
  .object({
    ...fileBase,
    upload: z
      .object({ id: z.string(), path: z.string(), parts: z.array(s3FileUploadPartSchema) })
      .meta({ id: 'S3FileUploadMultipart' }),
    is_uploaded: z.boolean(),
    service: fileServiceTypesSchema,
    size_readable: z.string(),
  })
  .meta({ id: 'FileUpload' });
export type FileUploadWire = z.infer<typeof fileUploadSchema>;

export const fileUploadCompletedSchema = z
  .strictObject({
    id: z.string().min(1).max(64),
    path: z.string().min(1).max(2048),
    parts: z
      .array(
        z
          .strictObject({
            number: z.number().int().min(1).max(MAX_PARTS),
            checksum_etag: z.string().max(128),
            checksum_sha256_base64: z.string().max(64).nullable().optional(),
          })
          .meta({ id: 'S3FileUploadCompletedPart' }),
      )
      .min(1)
      .max(MAX_PARTS),
  })
  .meta({ id: 'FileUploadCompleted' });
export type FileUploadCompletedInput = z.output<typeof fileUploadCompletedSchema>;

export const filePatchSchema = z
  .strictObject({ name: fileName.nullable().optional(), version })
  .meta({ id: 'FilePatch' });
export type FilePatchInput = z.output<typeof filePatchSchema>;

export const fileListQuery = z.object({
  organization_id: repeated(z.string()).optional(),
  ids: uuidFilter().optional(),
  ...pageQuery,
});

export const fileListSchema = listResource(fileReadSchema, 'ListResource_FileRead_');

/** Polar's `human_readable_size`: 1024-based, one decimal, e.g. "512.0 B", "8.0 MB". */
export function sizeReadable(size: number): string {
  let value = size;
  for (const unit of ['', 'K', 'M', 'G', 'T', 'P', 'E', 'Z']) {
    if (Math.abs(value) < 1024) return `${value.toFixed(1)} ${unit}B`;
    value /= 1024;
  }
  return `${value.toFixed(1)} YB`;
}
