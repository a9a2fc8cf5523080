import type { Clock } from '../kernel/clock.js';
import { DAY } from '../kernel/clock.js';
import type { SessionConfig } from '../kernel/config.js';
import { sha256Hex } from '../kernel/crypto.js';
import type { Db } from '../kernel/db.js';
import { newAuthId, randomAlphanumeric } from '../kernel/ids.js';
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

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService(deps: { db: Db; clock: Clock; session: SessionConfig }) {
  const { clock, session: config } = deps;

  function isDueForRefresh(session: Session, now: Date): boolean {
    // Better Auth's rule: slide once the session is older than updateAge, measured from its last extension.
    return session.expiresAt.getTime() - config.expiresIn * 1000 + config.updateAge * 1000 <= now.getTime();
  }

  return {
    /** Creates a session; pass a transaction as db to make it part of a larger change. */
    async create(db: Db, userId: string, options: { rememberMe: boolean; meta: RequestMeta }): Promise<{ session: Session; token: string }> {
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
      };
      await sessionsRepository(db).insert(session);
      return { session, token };
    },

    /**
     * Resolves a token to its session and user. Expired sessions are deleted and answer null. With refresh
     * allowed, a session past its update age is extended; `refreshed` tells the caller to re-issue the cookie.
     */
    async resolve(token: string, options: { refresh: boolean }): Promise<(AuthActor & { refreshed: boolean }) | null> {
      const repo = sessionsRepository(deps.db);
      const found = await repo.findWithUserByTokenHash(hashSessionToken(token));
      if (!found) return null;
      const now = clock.now();
      if (found.session.expiresAt.getTime() <= now.getTime()) {
        await repo.deleteById(found.session.id);
        return null;
      }
      if (options.refresh && found.session.rememberMe && isDueForRefresh(found.session, now)) {
        const expiresAt = new Date(now.getTime() + config.expiresIn * 1000);
        await repo.extend(found.session.id, expiresAt, now);
        return { ...found, session: { ...found.session, expiresAt, updatedAt: now }, token, refreshed: true };
      }
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
      const repo = sessionsRepository(deps.db);
      const removed = await repo.deleteByTokenHashForUser(userId, hashSessionToken(handle));
      if (removed === 0 && /^[0-9a-f]{64}$/.test(handle)) await repo.deleteByTokenHashForUser(userId, handle);
    },

    async revokeAll(userId: string): Promise<void> {
      await sessionsRepository(deps.db).deleteAllForUser(userId);
    },

    async revokeOthers(userId: string, keepSessionId: string): Promise<void> {
      await sessionsRepository(deps.db).deleteOthersForUser(userId, keepSessionId);
    },

    async end(sessionId: string): Promise<void> {
      await sessionsRepository(deps.db).deleteById(sessionId);
    },

    async purgeExpired(): Promise<number> {
      return sessionsRepository(deps.db).deleteExpired(clock.now());
    },
  };
}
