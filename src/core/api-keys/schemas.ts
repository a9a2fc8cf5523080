import { z } from 'zod';
import { jsonLength, TEXT_LIMITS } from '../kernel/text.js';

// Wire shapes of /api/auth/api-key/* (Better Auth's api-key plugin, camelCase) and of the operator's
// /api/admin/api-keys/*. Shared by the daemon's guards and the CLI's client.

export const API_KEY_RULES = {
  /** Random letters after the prefix; also the shortest value x-api-key may carry (Better Auth's 403 below it). */
  keyLength: 64,
  /** Characters of the full key (prefix included) kept in clear so people can tell their keys apart. */
  startLength: 6,
  name: { min: 1, max: 32 },
  prefix: { min: 1, max: 32 },
  expiresInDays: { min: 1, max: 365 },
} as const;

/** Fields Better Auth lets only the server set; over /api/auth they are refused with SERVER_ONLY_PROPERTY. */
export const SERVER_ONLY_FIELDS = [
  'userId',
  'remaining',
  'refillAmount',
  'refillInterval',
  'rateLimitEnabled',
  'rateLimitTimeWindow',
  'rateLimitMax',
  'permissions',
] as const;

const prefix = z.string().regex(/^[a-zA-Z0-9_-]+$/, {
  message: 'Invalid prefix format, must be alphanumeric and contain only underscores and hyphens.',
});
const expiresIn = z.number().min(1).nullish();
// Stored as JSON text (kernel/text.ts): the same cap on SQLite and PostgreSQL. Its shape is the service's to judge.
const metadata = z
  .unknown()
  .refine((value) => jsonLength(value) <= TEXT_LIMITS.json, {
    message: `Too big: expected metadata to have <=${TEXT_LIMITS.json} characters as JSON`,
  })
  .optional();
// Only the default configuration exists; Better Auth's clients send its id.
const configId = z.literal('default').optional();
const serverOnlyOverHttp = Object.fromEntries(SERVER_ONLY_FIELDS.map((field) => [field, z.unknown().optional()])) as {
  [K in (typeof SERVER_ONLY_FIELDS)[number]]: z.ZodOptional<z.ZodUnknown>;
};

export const createApiKeyBody = z.strictObject({
  configId,
  name: z.string().optional(),
  expiresIn,
  prefix: prefix.optional(),
  metadata,
  organizationId: z.string().optional(),
  ...serverOnlyOverHttp,
});
export type CreateApiKeyBody = z.infer<typeof createApiKeyBody>;

export const updateApiKeyBody = z.strictObject({
  configId,
  keyId: z.string(),
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  expiresIn,
  metadata,
  ...serverOnlyOverHttp,
});
export type UpdateApiKeyBody = z.infer<typeof updateApiKeyBody>;

export const deleteApiKeyBody = z.strictObject({ configId, keyId: z.string() });
export const getApiKeyQuery = z.object({ id: z.string(), configId });

export const API_KEY_SORT_FIELDS = ['createdAt', 'updatedAt', 'name', 'expiresAt', 'lastRequest'] as const;
export const listApiKeysQuery = z.object({
  configId,
  organizationId: z.string().optional(),
  limit: z.coerce.number().int().nonnegative().optional(),
  offset: z.coerce.number().int().nonnegative().optional(),
  sortBy: z.enum(API_KEY_SORT_FIELDS).optional(),
  sortDirection: z.enum(['asc', 'desc']).optional(),
});
export type ListApiKeysQuery = z.infer<typeof listApiKeysQuery>;

// The operator sets what Better Auth keeps server-side: usage limits with refill, per-key rate limits, permissions.
const count = z.number().int();
const milliseconds = z.number().int().min(1);
const operatorFields = {
  remaining: count.min(0).nullish(),
  refillAmount: count.min(1).nullish(),
  refillInterval: milliseconds.nullish(),
  rateLimitEnabled: z.boolean().optional(),
  rateLimitTimeWindow: milliseconds.nullish(),
  rateLimitMax: count.min(1).nullish(),
  permissions: z
    .record(z.string(), z.array(z.string()))
    .refine((value) => jsonLength(value) <= TEXT_LIMITS.json, {
      message: `Too big: expected permissions to have <=${TEXT_LIMITS.json} characters as JSON`,
    })
    .nullish(),
};

/** The owner is a user or an organization: exactly one of userId and organizationId, so no key has two owners. */
export const adminCreateApiKeyBody = z
  .strictObject({
    userId: z.string().min(1).optional(),
    name: z.string().optional(),
    expiresIn,
    prefix: prefix.optional(),
    metadata,
    organizationId: z.string().min(1).optional(),
    ...operatorFields,
  })
  .refine((body) => (body.userId === undefined) !== (body.organizationId === undefined), {
    message: 'Exactly one of userId and organizationId is required',
    path: ['userId'],
  });
export type AdminCreateApiKeyBody = z.infer<typeof adminCreateApiKeyBody>;

export const adminUpdateApiKeyBody = z.strictObject({
  keyId: z.string(),
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  expiresIn,
  metadata,
  ...operatorFields,
});
export type AdminUpdateApiKeyBody = z.infer<typeof adminUpdateApiKeyBody>;

const timestamp = z.string().nullable();
export const apiKeyWire = z.object({
  id: z.string(),
  configId: z.string(),
  name: z.string().nullable(),
  start: z.string().nullable(),
  prefix: z.string().nullable(),
  /** The owner: a user id (an organization id once organizations exist). */
  referenceId: z.string(),
  enabled: z.boolean(),
  rateLimitEnabled: z.boolean(),
  rateLimitTimeWindow: z.number().nullable(),
  rateLimitMax: z.number().nullable(),
  /** Requests in the current rate-limit window for rate-limited keys; otherwise all requests (recorded within a minute). */
  requestCount: z.number(),
  remaining: z.number().nullable(),
  refillAmount: z.number().nullable(),
  refillInterval: z.number().nullable(),
  lastRefillAt: timestamp,
  lastRequest: timestamp,
  expiresAt: timestamp,
  createdAt: z.string(),
  updatedAt: z.string(),
  permissions: z.record(z.string(), z.array(z.string())).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});
export type ApiKeyWire = z.infer<typeof apiKeyWire>;

/** What create answers: the key object and, this once, the key itself. */
export const createdApiKeyWire = apiKeyWire.extend({ key: z.string() });
export type CreatedApiKeyWire = z.infer<typeof createdApiKeyWire>;

export const listApiKeysResponse = z.object({
  apiKeys: z.array(apiKeyWire),
  total: z.number(),
  limit: z.number().optional(),
  offset: z.number().optional(),
});
export type ListApiKeysResponse = z.infer<typeof listApiKeysResponse>;
