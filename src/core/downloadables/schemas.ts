import { z } from 'zod';
import { fileBase, fileServiceTypesSchema } from '../files/schemas.js';
import { pageQuery, uuidFilter } from '../kernel/pagination.js';
import { datetime, listResource } from '../polar-api/schemas.js';

/** `GET /v1/customer-portal/downloadables/` (Polar's filters). */
export const downloadableListQuery = z.object({ benefit_id: uuidFilter().optional(), ...pageQuery });

export const s3DownloadUrlSchema = z
  .object({ url: z.string(), headers: z.record(z.string(), z.string()), expires_at: datetime })
  .meta({ id: 'S3DownloadURL' });

export const fileDownloadSchema = z
  .object({
    ...fileBase,
    download: s3DownloadUrlSchema,
    is_uploaded: z.boolean(),
    service: fileServiceTypesSchema,
    size_readable: z.string(),
  })
  .meta({ id: 'FileDownload' });

export const downloadableReadSchema = z
  .object({ id: z.string(), benefit_id: z.string(), file: fileDownloadSchema })
  .meta({ id: 'DownloadableRead' });

export const downloadableListSchema = listResource(downloadableReadSchema, 'ListResource_DownloadableRead_');

/** The signed download link's path and query. */
export const downloadableFileParams = z.object({ id: z.string().min(1).max(64) });
export const downloadableFileQuery = z.object({ token: z.string().max(200).optional() });

export type DownloadableListQuery = z.output<typeof downloadableListQuery>;
export type DownloadableReadWire = z.infer<typeof downloadableReadSchema>;
