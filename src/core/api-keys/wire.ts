import type { ApiKeyRecord } from './repository.js';
import type { ApiKeyWire, CreatedApiKeyWire } from './schemas.js';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The key object of Better Auth's api-key plugin; the hash never leaves the daemon. */
export function apiKeyToWire(key: ApiKeyRecord): ApiKeyWire {
  return {
    id: key.id,
    configId: key.configId,
    name: key.name,
    start: key.start,
    prefix: key.prefix,
    referenceId: key.referenceId,
    enabled: key.enabled,
    rateLimitEnabled: key.rateLimitEnabled,
    rateLimitTimeWindow: key.rateLimitTimeWindow,
    rateLimitMax: key.rateLimitMax,
    requestCount: key.requestCount,
    remaining: key.remaining,
    refillAmount: key.refillAmount,
    refillInterval: key.refillInterval,
    lastRefillAt: iso(key.lastRefillAt),
    lastRequest: iso(key.lastRequest),
    expiresAt: iso(key.expiresAt),
    createdAt: key.createdAt.toISOString(),
    updatedAt: key.updatedAt.toISOString(),
    permissions: key.permissions,
    metadata: key.metadata,
  };
}

export function createdApiKeyToWire(key: ApiKeyRecord, plaintext: string): CreatedApiKeyWire {
  return { ...apiKeyToWire(key), key: plaintext };
}
