import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../kernel/crypto.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import type { Changing } from '../cache/changing.js';
import type { ReadCache } from '../cache/read-cache.js';
import { accessInvalidation } from '../cache/read-cache.js';
import { resourceNotFound } from '../polar-api/errors.js';
import { randomAlphanumeric } from '../kernel/ids.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { OrganizationAccessToken } from './repository.js';
import { accessTokensRepository } from './repository.js';
import type { OrganizationAccessTokenWire } from './schemas.js';

/** Till's own prefix (not Polar's `polar_oat_`) so secret scanners never report a Till token to Polar. */
export const ACCESS_TOKEN_PREFIX = 'till_oat_';
const LAST_USED_RESOLUTION_MS = 60_000;

export function looksLikeAccessToken(value: string): boolean {
  return value.startsWith(ACCESS_TOKEN_PREFIX);
}

export function accessTokenWire(token: OrganizationAccessToken): OrganizationAccessTokenWire {
  return {
    created_at: iso(token.createdAt),
    modified_at: isoOrNull(token.modifiedAt),
    id: token.id,
    scopes: token.scopes as OrganizationAccessTokenWire['scopes'],
    expires_at: isoOrNull(token.expiresAt),
    comment: token.comment,
    last_used_at: isoOrNull(token.lastUsedAt),
    organization_id: token.organizationId,
  };
}

/**
 * `cache` holds tokens by hash, owned by their organization's access key: a revoke, update or deletion (of the token
 * or its organization) announces it, so the next request reads the change. Expiry is checked at each use.
 */
export function createAccessTokenService(deps: { db: Db; clock: Clock; cache: ReadCache; changing: Changing }) {
  const { db, clock, cache } = deps;
  const repo = accessTokensRepository(db);
  /** When this daemon last wrote last_used_at per token: a cached token's own value is the one it was read with. */
  const touched = new Map<string, number>();

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<OrganizationAccessToken> {
    const token = await repo.findById(id);
    if (!token) throw resourceNotFound();
    authorize(actor, token.organizationId, mode);
    return token;
  }

  return {
    /** The token behind a bearer value, or null when it is unknown or expired. */
    async authenticate(value: string): Promise<OrganizationAccessToken | null> {
      const tokenHash = sha256Hex(value);
      const token = await cache.read(
        db,
        `oat:${tokenHash}`,
        async () => {
          const found = await repo.findByHash(tokenHash);
          return found ? { value: found, organizationId: found.organizationId } : null;
        },
        accessInvalidation,
      );
      const now = clock.now();
      if (!token || (token.expiresAt && token.expiresAt <= now)) return null;
      // Written at most once a minute per token: the column answers "is this token still used?", not an audit log.
      const lastUsed = Math.max(token.lastUsedAt?.getTime() ?? -Infinity, touched.get(token.id) ?? -Infinity);
      if (now.getTime() - lastUsed > LAST_USED_RESOLUTION_MS) {
        touched.set(token.id, now.getTime());
        await repo.touch(token.id, now);
      }
      return token;
    },

    async create(
      actor: MerchantActor,
      input: { organization_id?: string | null; comment: string; expires_in?: number | null; scopes: string[] },
    ) {
      const organizationId = organizationForCreate(actor, input.organization_id);
      const now = clock.now();
      const secret = `${ACCESS_TOKEN_PREFIX}${randomAlphanumeric(43)}`;
      const token: OrganizationAccessToken = {
        id: randomUUID(),
        organizationId,
        comment: input.comment,
        scopes: [...new Set(input.scopes)],
        expiresAt: input.expires_in ? new Date(now.getTime() + input.expires_in * 1000) : null,
        lastUsedAt: null,
        createdAt: now,
        modifiedAt: null,
      };
      await repo.insert(token, sha256Hex(secret));
      return { organization_access_token: accessTokenWire(token), token: secret };
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[] },
    ): Promise<Page<OrganizationAccessTokenWire>> {
      const page = await repo.list(organizationFilter(actor, query.organization_id), query);
      return { items: page.items.map(accessTokenWire), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: { comment?: string | null; scopes?: string[] | null }) {
      const token = await owned(actor, id, 'write');
      const changes = {
        ...(input.comment ? { comment: input.comment } : {}),
        ...(input.scopes ? { scopes: [...new Set(input.scopes)] } : {}),
        modifiedAt: clock.now(),
      };
      await deps.changing(async (trx, announce) => {
        announce([accessInvalidation(token.organizationId)]);
        await accessTokensRepository(trx).update(token.id, changes);
      });
      return accessTokenWire({ ...token, ...changes });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      const token = await owned(actor, id, 'write');
      await deps.changing(async (trx, announce) => {
        announce([accessInvalidation(token.organizationId)]);
        await accessTokensRepository(trx).delete(token.id);
      });
      touched.delete(token.id);
    },
  };
}

export type AccessTokenService = ReturnType<typeof createAccessTokenService>;
