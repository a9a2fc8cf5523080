import { authError } from '../auth/errors.js';
import { usersRepository } from '../auth/repository.js';
import type { AuthActor } from '../auth/sessions.js';
import type { Clock } from '../kernel/clock.js';
import { DAY, MINUTE } from '../kernel/clock.js';
import type { SessionConfig } from '../config/index.js';
import type { Db } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import { newAuthId } from '../kernel/ids.js';
import { CREATOR_ROLE, hasRole, roleAllows } from '../organizations/permissions.js';
import { membersRepository, organizationsRepository } from '../organizations/repository.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import { CoherentCache } from '../cache/coherent-cache.js';
import { createChanging } from '../cache/changing.js';
import type { CachedKey } from './verify.js';
import { apiKeyError } from './errors.js';
import { hashApiKey, newApiKey } from './keys.js';
import type { ApiKeyChanges, ApiKeyRecord, ReferenceType } from './repository.js';
import { apiKeysRepository } from './repository.js';
import type {
  AdminCreateApiKeyBody,
  AdminUpdateApiKeyBody,
  CreateApiKeyBody,
  ListApiKeysQuery,
  UpdateApiKeyBody,
} from './schemas.js';
import { API_KEY_RULES, SERVER_ONLY_FIELDS } from './schemas.js';
import { UsageRecorder } from './usage.js';
import { apiKeyInvalidation, createVerifier } from './verify.js';

/** How long a verified key may be served from memory before it is read again, should an invalidation be lost. */
const CACHE_MAX_AGE_MS = MINUTE;

type Settings = Omit<AdminCreateApiKeyBody, 'userId' | 'organizationId'>;
type Update = Omit<AdminUpdateApiKeyBody, 'keyId'>;
/** The actions of the organization access-control resource `apiKey` (contract §7). */
type ApiKeyAction = 'create' | 'read' | 'update' | 'delete';

function checkLength(
  value: string | undefined,
  rule: { min: number; max: number },
  code: 'INVALID_NAME_LENGTH' | 'INVALID_PREFIX_LENGTH',
): void {
  if (value !== undefined && (value.length < rule.min || value.length > rule.max)) throw apiKeyError(400, code);
}

function checkMetadata(metadata: unknown): Record<string, unknown> | null | undefined {
  if (metadata === undefined || metadata === null) return metadata;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw apiKeyError(400, 'INVALID_METADATA_TYPE');
  return metadata as Record<string, unknown>;
}

/** expiresIn in seconds, within Better Auth's default bounds of one day to a year; null means never. */
function expiryFrom(expiresIn: number | null | undefined, now: Date): Date | null | undefined {
  if (expiresIn === undefined || expiresIn === null) return expiresIn;
  const days = expiresIn / (DAY / 1000);
  if (days < API_KEY_RULES.expiresInDays.min) throw apiKeyError(400, 'EXPIRES_IN_IS_TOO_SMALL');
  if (days > API_KEY_RULES.expiresInDays.max) throw apiKeyError(400, 'EXPIRES_IN_IS_TOO_LARGE');
  return new Date(now.getTime() + expiresIn * 1000);
}

/** A refill needs both its amount and its interval (Better Auth's codes, whose messages it words the other way). */
function checkRefill(input: { refillAmount?: number | null; refillInterval?: number | null }): void {
  const amount = input.refillAmount ?? null;
  const interval = input.refillInterval ?? null;
  if (amount !== null && interval === null) throw apiKeyError(400, 'REFILL_AMOUNT_AND_INTERVAL_REQUIRED');
  if (interval !== null && amount === null) throw apiKeyError(400, 'REFILL_INTERVAL_AND_AMOUNT_REQUIRED');
}

function refuseServerOnly(body: Record<string, unknown>): void {
  // Better Auth's client may send remaining: null (its default); only a value is server-only.
  const used = SERVER_ONLY_FIELDS.some(
    (field) => body[field] !== undefined && !(field === 'remaining' && body[field] === null),
  );
  if (used) throw apiKeyError(400, 'SERVER_ONLY_PROPERTY');
}

function owned(key: ApiKeyRecord | null, userId: string): ApiKeyRecord {
  // Someone else's key is as unknown as a missing one.
  if (!key || key.referenceType !== 'user' || key.referenceId !== userId) throw apiKeyError(404, 'KEY_NOT_FOUND');
  return key;
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

export function createApiKeyService(deps: { db: Db; clock: Clock; bus: InvalidationBus; session: SessionConfig }) {
  const { db, clock, bus } = deps;
  const cache = new CoherentCache<CachedKey>(CACHE_MAX_AGE_MS);
  const usage = new UsageRecorder((keyId, uses, lastRequest) =>
    apiKeysRepository(db).addUsage(keyId, uses, lastRequest),
  );

  /** Applies an invalidation key announced by any daemon (this one included). */
  function forgetKey(key: string): void {
    if (key.startsWith('apikey:')) cache.forget(key.slice('apikey:'.length));
    else if (key.startsWith('user:')) cache.forgetOwner(key.slice('user:'.length));
  }

  const changing = createChanging(db, bus);

  const verifier = createVerifier({ db, clock, bus, cache, usage, sessionExpiresIn: deps.session.expiresIn, changing });

  /**
   * Organization-owned keys (Better Auth's api-key plugin with the organization plugin): the caller must be a
   * member whose role grants `apiKey:<action>`. The default roles name no apiKey resource, so only the creator role
   * (owner), which Better Auth lets do everything, qualifies. Create, list, get, update and delete all pass through
   * here, so that owner-only rule is the same for every action.
   */
  async function authorizeOrganization(userId: string, organizationId: string, action: ApiKeyAction): Promise<void> {
    const member = await membersRepository(db).find(organizationId, userId);
    if (!member) throw apiKeyError(403, 'USER_NOT_MEMBER_OF_ORGANIZATION');
    if (!hasRole(member.role, CREATOR_ROLE) && !roleAllows(member.role, { apiKey: [action] }))
      throw apiKeyError(403, 'INSUFFICIENT_API_KEY_PERMISSIONS');
  }

  /**
   * The key a session may act on: its own user key, or a key of an organization whose member's role allows the
   * action. Non-members get Better Auth's 403, since the key names its organization; anything else is unknown.
   */
  async function reachable(
    actor: AuthActor,
    keyId: string,
    action: Exclude<ApiKeyAction, 'create'>,
  ): Promise<ApiKeyRecord> {
    const key = await apiKeysRepository(db).findById(keyId);
    if (key?.referenceType !== 'organization') return owned(key, actor.user.id);
    await authorizeOrganization(actor.user.id, key.referenceId, action);
    return key;
  }

  async function insert(owner: { referenceType: ReferenceType; referenceId: string }, settings: Settings) {
    const metadata = checkMetadata(settings.metadata);
    checkRefill(settings);
    const now = clock.now();
    const expiresAt = expiryFrom(settings.expiresIn, now) ?? null;
    checkLength(settings.prefix, API_KEY_RULES.prefix, 'INVALID_PREFIX_LENGTH');
    checkLength(settings.name, API_KEY_RULES.name, 'INVALID_NAME_LENGTH');
    const plaintext = newApiKey(settings.prefix);
    const window = settings.rateLimitTimeWindow ?? null;
    const max = settings.rateLimitMax ?? null;
    const record: ApiKeyRecord = {
      id: newAuthId(),
      configId: 'default',
      name: settings.name ?? null,
      start: plaintext.slice(0, API_KEY_RULES.startLength),
      prefix: settings.prefix ?? null,
      keyHash: hashApiKey(plaintext),
      referenceType: owner.referenceType,
      referenceId: owner.referenceId,
      enabled: true,
      // Off unless the operator sets a limit: Better Auth's default of 10 requests a day does not suit CI keys.
      rateLimitEnabled: settings.rateLimitEnabled ?? (window !== null && max !== null),
      rateLimitTimeWindow: window,
      rateLimitMax: max,
      rateLimitWindowStart: null,
      requestCount: 0,
      remaining: settings.remaining ?? settings.refillAmount ?? null,
      refillAmount: settings.refillAmount ?? null,
      refillInterval: settings.refillInterval ?? null,
      lastRefillAt: null,
      lastRequest: null,
      expiresAt,
      createdAt: now,
      updatedAt: now,
      permissions: settings.permissions ?? null,
      metadata: metadata ?? null,
    };
    await apiKeysRepository(db).insert(record);
    return { key: record, plaintext };
  }

  async function applyUpdate(key: ApiKeyRecord, input: Update): Promise<ApiKeyRecord> {
    const now = clock.now();
    checkLength(input.name, API_KEY_RULES.name, 'INVALID_NAME_LENGTH');
    const metadata = checkMetadata(input.metadata);
    if (input.refillAmount !== undefined || input.refillInterval !== undefined) checkRefill(input);
    const candidates: Omit<ApiKeyChanges, 'updatedAt'> = {
      name: input.name,
      enabled: input.enabled,
      expiresAt: expiryFrom(input.expiresIn, now),
      metadata,
      remaining: input.remaining,
      refillAmount: input.refillAmount,
      refillInterval: input.refillInterval,
      rateLimitEnabled: input.rateLimitEnabled,
      rateLimitTimeWindow: input.rateLimitTimeWindow,
      rateLimitMax: input.rateLimitMax,
      permissions: input.permissions,
    };
    const changes = Object.fromEntries(
      Object.entries(candidates).filter(([, value]) => value !== undefined),
    ) as typeof candidates;
    if (Object.keys(changes).length === 0) throw apiKeyError(400, 'NO_VALUES_TO_UPDATE');
    const updated = await changing((trx) => apiKeysRepository(trx).update(key.id, { ...changes, updatedAt: now }), {
      keys: [apiKeyInvalidation(key.keyHash)],
    });
    // Found a moment ago, gone now: deleted by a request that ran in between. Better Auth answers 500; this is a
    // conflict between two client requests, not a server fault, so Till answers 409.
    if (!updated) throw apiKeyError(409, 'FAILED_TO_UPDATE_API_KEY');
    return updated;
  }

  return {
    authenticate: verifier.authenticate,
    forgetKey,
    clearCache: () => cache.clear(),
    cacheSize: () => cache.size,
    /** Writes usage counted in memory; the daemon calls it every minute and at shutdown. */
    flushUsage: () => usage.flushAll(clock.now().getTime()),
    /**
     * Expired keys are deleted when presented; this sweeps the ones nobody presents again, and the keys of deleted
     * users (refused already: their lookup finds no user).
     */
    purgeExpired: () => apiKeysRepository(db).deleteExpiredAndOrphaned(clock.now()),

    /** POST /api-key/create. Better Auth's order: server-only fields, then the session, then the values. */
    async createForUser(actor: AuthActor | null, body: CreateApiKeyBody) {
      refuseServerOnly(body);
      if (!actor) throw apiKeyError(401, 'UNAUTHORIZED_SESSION');
      const { name, expiresIn, prefix, metadata } = body;
      if (body.organizationId !== undefined) {
        await authorizeOrganization(actor.user.id, body.organizationId, 'create');
        return insert(
          { referenceType: 'organization', referenceId: body.organizationId },
          { name, expiresIn, prefix, metadata },
        );
      }
      return insert({ referenceType: 'user', referenceId: actor.user.id }, { name, expiresIn, prefix, metadata });
    },

    /** The operator's create, which may set usage limits, refill, rate limits and permissions. */
    async createForAdmin(body: AdminCreateApiKeyBody) {
      const { userId, organizationId, ...settings } = body;
      if (organizationId !== undefined) {
        if (!(await organizationsRepository(db).findById(organizationId)))
          throw new DomainError(404, 'ORGANIZATION_NOT_FOUND', 'Organization not found');
        return insert({ referenceType: 'organization', referenceId: organizationId }, settings);
      }
      // The schema lets exactly one owner through; a userId is there whenever organizationId is not.
      if (userId === undefined || !(await usersRepository(db).findById(userId))) throw authError(404, 'USER_NOT_FOUND');
      return insert({ referenceType: 'user', referenceId: userId }, settings);
    },

    async get(actor: AuthActor, id: string): Promise<ApiKeyRecord> {
      return reachable(actor, id, 'read');
    },

    async list(actor: AuthActor, query: ListApiKeysQuery) {
      if (query.organizationId !== undefined) {
        await authorizeOrganization(actor.user.id, query.organizationId, 'read');
        return apiKeysRepository(db).listByReference('organization', query.organizationId, query);
      }
      return apiKeysRepository(db).listByReference('user', actor.user.id, query);
    },

    /** POST /api-key/update. Better Auth's order: the session, server-only fields, the key, then the values. */
    async updateForUser(actor: AuthActor | null, body: UpdateApiKeyBody): Promise<ApiKeyRecord> {
      if (!actor) throw apiKeyError(401, 'UNAUTHORIZED_SESSION');
      refuseServerOnly(body);
      const key = await reachable(actor, body.keyId, 'update');
      return applyUpdate(key, {
        name: body.name,
        enabled: body.enabled,
        expiresIn: body.expiresIn,
        metadata: body.metadata,
      });
    },

    async updateForAdmin(body: AdminUpdateApiKeyBody): Promise<ApiKeyRecord> {
      const { keyId, ...input } = body;
      const key = await apiKeysRepository(db).findById(keyId);
      if (!key) throw apiKeyError(404, 'KEY_NOT_FOUND');
      return applyUpdate(key, input);
    },

    async remove(actor: AuthActor, keyId: string): Promise<void> {
      const key = await reachable(actor, keyId, 'delete');
      const removed = await changing((trx) => apiKeysRepository(trx).deleteById(key.id), {
        keys: [apiKeyInvalidation(key.keyHash)],
      });
      if (removed === 0) throw apiKeyError(404, 'KEY_NOT_FOUND');
    },
  };
}
