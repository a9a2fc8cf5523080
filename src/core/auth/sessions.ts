import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { SessionConfig } from '../config/index.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { Db } from '../database/index.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
import { CoherentCache } from '../cache/coherent-cache.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import { createChanging } from '../cache/changing.js';
import type { Session, User } from './repository.js';
import { sessionsRepository } from './repository.js';

/** Who is asking: the resolved session, its user, and the bearer token the request presented. */
export interface AuthActor {
  session: Session;
  user: User;
  token: string;
}

export interface RequestMeta {
  ipAddress: string;
  userAgent: string;
}

export function hashSessionToken(token: string): string {
  return sha256Hex(token);
}

// Invalidation keys, shared with other daemons through the bus.
const sessionKey = (tokenHash: string) => `session:${tokenHash}`;
const userKey = (userId: string) => `user:${userId}`;

/** How long a cached session may be served before it is read again, should an invalidation ever be lost. */
const CACHE_MAX_AGE_MS = 60_000;

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService(deps: { db: Db; clock: Clock; session: SessionConfig; bus: InvalidationBus }) {
  const { clock, session: config, bus } = deps;
  // Resolved sessions by token hash, owned by their user (a change to the user drops them all).
  const cache = new CoherentCache<{ session: Session; user: User }>(CACHE_MAX_AGE_MS);

  function isDueForRefresh(session: Session, now: number): boolean {
    // Better Auth's rule: slide once the session is older than updateAge, measured from its last extension.
    return session.expiresAt.getTime() - config.expiresIn * 1000 + config.updateAge * 1000 <= now;
  }

  /** Applies an invalidation key announced by any daemon (this one included). */
  function forgetKey(key: string): void {
    if (key.startsWith('session:')) cache.forget(key.slice('session:'.length));
    else if (key.startsWith('user:')) cache.forgetOwner(key.slice('user:'.length));
  }

  // Every change to sessions or users announces what it changes (cache/changing.ts), so every daemon forgets it.
  const changing = createChanging(deps.db, bus);

  return {
    forgetKey,
    clearCache: () => cache.clear(),
    cacheSize: () => cache.size,

    /** Creates a session; pass a transaction as db to make it part of a larger change. */
    async create(
      db: Db,
      userId: string,
      options: { rememberMe: boolean; meta: RequestMeta },
    ): Promise<{ session: Session; token: string }> {
      const now = clock.now();
      // 32 alphanumerics carry ~190 bits; only their SHA-256 is stored.
      const token = randomAlphanumeric(32);
      // A browser-session sign-in (rememberMe false) lives one day and never slides, as in Better Auth.
      const lifetimeMs = options.rememberMe ? config.expiresIn * 1000 : DAY;
      const session: Session = {
        id: newAuthId(),
        tokenHash: hashSessionToken(token),
        userId,
        expiresAt: new Date(now.getTime() + lifetimeMs),
        rememberMe: options.rememberMe,
        ipAddress: options.meta.ipAddress,
        userAgent: options.meta.userAgent,
        createdAt: now,
        updatedAt: now,
        activeOrganizationId: null,
        activeTeamId: null,
      };
      await sessionsRepository(db).insert(session);
      return { session, token };
    },

    /**
     * Resolves a token to its session and user. Expired sessions are deleted and answer null. With refresh
     * allowed, a session past its update age is extended; `refreshed` tells the caller to re-issue the cookie.
     * With `cached`, a recent answer may come from memory (get-session, the hot path); sensitive routes read the
     * database every time.
     */
    async resolve(
      token: string,
      options: { refresh: boolean; cached?: boolean },
    ): Promise<(AuthActor & { refreshed: boolean }) | null> {
      const tokenHash = hashSessionToken(token);
      const now = clock.now().getTime();
      const useCache = options.cached === true && bus.coherent;
      if (useCache) {
        const hit = cache.get(tokenHash, now);
        if (
          hit &&
          hit.session.expiresAt.getTime() > now &&
          !(options.refresh && hit.session.rememberMe && isDueForRefresh(hit.session, now))
        ) {
          return { session: hit.session, user: hit.user, token, refreshed: false };
        }
      }
      const repo = sessionsRepository(deps.db);
      const readEpoch = cache.beginRead();
      const found = await repo.findWithUserByTokenHash(tokenHash);
      if (!found) return null;
      if (found.session.expiresAt.getTime() <= now) {
        await changing((db) => sessionsRepository(db).deleteById(found.session.id), { keys: [sessionKey(tokenHash)] });
        return null;
      }
      if (options.refresh && found.session.rememberMe && isDueForRefresh(found.session, now)) {
        const expiresAt = new Date(now + config.expiresIn * 1000);
        const updatedAt = new Date(now);
        await changing((db) => sessionsRepository(db).extend(found.session.id, expiresAt, updatedAt), {
          keys: [sessionKey(tokenHash)],
        });
        const session = { ...found.session, expiresAt, updatedAt };
        if (useCache) cache.put(tokenHash, found.user.id, { session, user: found.user }, now);
        return { ...found, session, token, refreshed: true };
      }
      if (useCache) cache.fill(readEpoch, tokenHash, found.user.id, found, now);
      return { ...found, token, refreshed: false };
    },

    isFresh(session: Session): boolean {
      if (config.freshAge === 0) return true;
      return clock.now().getTime() - session.createdAt.getTime() < config.freshAge * 1000;
    },

    async list(userId: string): Promise<Session[]> {
      return sessionsRepository(deps.db).listActiveByUser(userId, clock.now());
    },

    /**
     * Revokes one of the user's own sessions. The handle is either a session token or the token digest that
     * list-sessions shows for sessions other than the caller's; unknown handles succeed silently (Better Auth).
     */
    async revoke(userId: string, handle: string): Promise<void> {
      await changing(
        async (db) => {
          const repo = sessionsRepository(db);
          const removed = await repo.deleteByTokenHashForUser(userId, hashSessionToken(handle));
          if (removed === 0 && /^[0-9a-f]{64}$/.test(handle)) await repo.deleteByTokenHashForUser(userId, handle);
        },
        { keys: [userKey(userId)] },
      );
    },

    async revokeAll(userId: string, db?: Db): Promise<void> {
      await changing((trx) => sessionsRepository(trx).deleteAllForUser(userId), {
        keys: [userKey(userId)],
        within: db,
      });
    },

    async revokeOthers(userId: string, keepSessionId: string): Promise<void> {
      await changing((db) => sessionsRepository(db).deleteOthersForUser(userId, keepSessionId), {
        keys: [userKey(userId)],
      });
    },

    async end(session: Session): Promise<void> {
      await changing((db) => sessionsRepository(db).deleteById(session.id), { keys: [sessionKey(session.tokenHash)] });
    },

    /** Any change to a user that cached sessions carry (profile, e-mail, deletion) goes through here. */
    userChanging<T>(userId: string, work: (db: Db) => Promise<T>, db?: Db): Promise<T> {
      return changing((trx) => work(trx), { keys: [userKey(userId)], within: db });
    },

    /** Sets the organization (and team) a session works in; cached copies of the session are dropped at commit. */
    setActiveOrganization(
      session: Session,
      organizationId: string | null,
      teamId: string | null,
      db?: Db,
    ): Promise<void> {
      return changing((trx) => sessionsRepository(trx).setActiveOrganization(session.id, organizationId, teamId), {
        keys: [sessionKey(session.tokenHash)],
        within: db,
      });
    },

    /** Clears an organization from the sessions that have it active (all of them, or one user's). */
    async clearActiveOrganization(db: Db, organizationId: string, userId?: string): Promise<void> {
      const userIds = await sessionsRepository(db).userIdsWithActiveOrganization(organizationId, userId);
      if (userIds.length === 0) return;
      await changing((trx) => sessionsRepository(trx).clearActiveOrganization(organizationId, userId), {
        keys: userIds.map(userKey),
        within: db,
      });
    },

    async purgeExpired(): Promise<number> {
      return sessionsRepository(deps.db).deleteExpired(clock.now());
    },
  };
}
