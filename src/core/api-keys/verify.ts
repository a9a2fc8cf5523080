import type { Session, User } from '../auth/repository.js';
import type { AuthActor } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { Changing } from '../cache/changing.js';
import type { CoherentCache } from '../cache/coherent-cache.js';
import { apiKeyError } from './errors.js';
import { hashApiKey } from './keys.js';
import type { ApiKeyRecord } from './repository.js';
import { apiKeysRepository } from './repository.js';
import { API_KEY_RULES } from './schemas.js';
import type { UsageRecorder } from './usage.js';

export interface VerifierDeps {
  db: Db;
  clock: Clock;
  bus: InvalidationBus;
  /** Verified keys by hash, owned by their user; usage counters are never decided from it. */
  cache: CoherentCache<CachedKey>;
  usage: UsageRecorder;
  /** Seconds a session lives: the mock session of a key without expiry ends that far ahead, as in Better Auth. */
  sessionExpiresIn: number;
  /** Changes that cached keys depend on (cache/changing.ts). */
  changing: Changing;
}

export const apiKeyInvalidation = (keyHash: string) => `apikey:${keyHash}`;

function isRateLimited(key: ApiKeyRecord): boolean {
  return key.rateLimitEnabled && key.rateLimitTimeWindow !== null && key.rateLimitMax !== null;
}

function refillDue(key: ApiKeyRecord, now: number): boolean {
  if (key.refillInterval === null || key.refillAmount === null) return false;
  return (key.lastRefillAt ?? key.createdAt).getTime() + key.refillInterval < now;
}

/**
 * Authenticates a request by API key, as Better Auth's api-key plugin does with `enableSessionForAPIKeys`: the
 * key's user, with a mock session whose id is the key's id and whose token is the key.
 *
 * The common case (a key without usage or rate limit) is answered from memory and writes nothing; its use is
 * counted in memory and written at most once a minute. Keys with `remaining` or a rate limit are counted exactly,
 * by one atomic UPDATE per use.
 */
export interface CachedKey {
  key: ApiKeyRecord;
  user: User;
}

export function createVerifier(deps: VerifierDeps) {
  const { clock, cache, bus } = deps;

  async function lookup(
    keyHash: string,
    now: number,
    useCache: boolean,
  ): Promise<{ key: ApiKeyRecord; user: User | null }> {
    const hit = useCache ? cache.get(keyHash, now) : null;
    if (hit) return hit;
    const readEpoch = cache.beginRead();
    const found = await apiKeysRepository(deps.db).findWithUserByHash(keyHash);
    if (!found) throw apiKeyError(401, 'INVALID_API_KEY');
    if (useCache && found.user && found.key.referenceType === 'user')
      cache.fill(readEpoch, keyHash, found.user.id, { key: found.key, user: found.user }, now);
    return found;
  }

  /** Why an atomic count was refused, read back from the row. */
  async function refusal(key: ApiKeyRecord, now: number): Promise<Error> {
    const fresh = await apiKeysRepository(deps.db).findById(key.id);
    if (!fresh) return apiKeyError(401, 'INVALID_API_KEY');
    if (fresh.remaining !== null && fresh.remaining <= 0 && !refillDue(fresh, now))
      return apiKeyError(429, 'USAGE_EXCEEDED');
    const windowEnds = (fresh.rateLimitWindowStart?.getTime() ?? now) + (fresh.rateLimitTimeWindow ?? 0);
    const retryAfter = String(Math.max(1, Math.ceil((windowEnds - now) / 1000)));
    return apiKeyError(429, 'RATE_LIMIT_EXCEEDED', { headers: { 'X-Retry-After': retryAfter } });
  }

  return {
    /**
     * `cached` lets a recently verified key be answered from memory (get-session), like sessions; usage and rate
     * limits are enforced against the database either way.
     */
    async authenticate(
      presented: string,
      options: { cached?: boolean } = {},
    ): Promise<AuthActor & { refreshed: false }> {
      // Better Auth refuses values shorter than a generated key before looking anything up.
      if (presented.length < API_KEY_RULES.keyLength) throw apiKeyError(403, 'INVALID_API_KEY');
      const keyHash = hashApiKey(presented);
      const at = clock.now();
      const now = at.getTime();
      const { key, user } = await lookup(keyHash, now, options.cached === true && bus.coherent);
      if (!key.enabled) throw apiKeyError(401, 'KEY_DISABLED');
      if (key.expiresAt && key.expiresAt.getTime() <= now) {
        await deps.changing((db) => apiKeysRepository(db).deleteById(key.id), { keys: [apiKeyInvalidation(keyHash)] });
        throw apiKeyError(401, 'KEY_EXPIRED');
      }
      // Organization-owned keys cannot stand for a user (Better Auth's answer as well).
      if (key.referenceType !== 'user' || !user) throw apiKeyError(401, 'INVALID_REFERENCE_ID_FROM_API_KEY');
      if (key.remaining !== null || isRateLimited(key)) {
        const counted = await apiKeysRepository(deps.db).consume(key.id, at);
        if (!counted) throw await refusal(key, now);
      } else {
        await deps.usage.record(key.id, at);
      }
      const session: Session = {
        id: key.id,
        tokenHash: keyHash,
        userId: user.id,
        expiresAt: key.expiresAt ?? new Date(now + deps.sessionExpiresIn * 1000),
        rememberMe: true,
        ipAddress: '',
        userAgent: '',
        createdAt: at,
        updatedAt: at,
        // Better Auth's mock session for an API key carries no organization either.
        activeOrganizationId: null,
        activeTeamId: null,
      };
      return { session, user, token: presented, refreshed: false };
    },
  };
}
