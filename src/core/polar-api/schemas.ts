import { z } from 'zod';

/** Shapes every /v1 resource shares. Resource schemas carry `.meta({ id })` so the OpenAPI document names them. */

/** Datetimes always leave as ISO 8601 with an offset (the SDK rejects anything else). */
export function iso(date: Date): string {
  return date.toISOString();
}

export function isoOrNull(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

export const datetime = z.iso.datetime({ offset: true });

/** Metadata as Polar validates it: up to 50 keys of 1–40 characters; values string (1–500), number or boolean. */
export const metadataInput = z
  .record(z.string().min(1).max(40), z.union([z.string().min(1).max(500), z.number().int(), z.number(), z.boolean()]))
  .refine((value) => Object.keys(value).length <= 50, { message: 'Metadata can have at most 50 keys' })
  .meta({ id: 'MetadataInput' });

export const metadataOutput = z
  .record(z.string(), z.union([z.string(), z.number().int(), z.number(), z.boolean()]))
  .meta({ id: 'MetadataOutputType' });

export type Metadata = Record<string, string | number | boolean>;

export const paginationSchema = z
  .object({ total_count: z.number().int(), max_page: z.number().int() })
  .meta({ id: 'Pagination' });

/** Polar's `ListResource[T]`. */
export function listResource<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), pagination: paginationSchema }).meta({ id });
}

/**
 * Path parameter `{id}` of a billing resource (a UUID). A malformed id is simply not found: the V1 router answers
 * 404 before any query runs (PostgreSQL would refuse to compare it with a uuid column).
 */
export const idParams = z.object({ id: z.string().min(1).max(64) });

/** Organizations keep Better Auth's 32-character ids, so their `{id}` is not a UUID. */
export const organizationIdParams = z.object({ id: z.string().min(1).max(64) });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export const organizationIdInput = z.string().min(1).max(64).nullable().optional();
