import type { Context } from 'koa';
import { authError } from '../core/auth/errors.js';
import type { AuthActor, RequestMeta } from '../core/auth/sessions.js';
import type { CoreContext } from '../core/context.js';
import type { AuthCookies } from './auth-cookies.js';

export interface PresentedToken {
  token: string | null;
  source: 'cookie' | 'bearer' | null;
  dontRemember: boolean;
}

/**
 * Finds the session a request presents: `Authorization: Bearer <token>` (raw, or the signed cookie value) for the
 * CLI and scripts, else the signed session cookie.
 */
export function createSessionAuth(core: CoreContext, cookies: AuthCookies) {
  function presented(ctx: Context): PresentedToken {
    const authorization = ctx.get('authorization');
    if (authorization.toLowerCase().startsWith('bearer ')) {
      const value = authorization.slice(7).trim();
      const token = value.includes('.') || value.includes('%') ? cookies.unsign(value) : value;
      return { token: token || null, source: 'bearer', dontRemember: false };
    }
    const cookie = cookies.readSessionToken(ctx);
    if (!cookie.present) return { token: null, source: null, dontRemember: false };
    return { token: cookie.token, source: 'cookie', dontRemember: cookie.dontRemember };
  }

  /** `cached` lets a recent answer come from memory: for get-session, not for routes that act on the session. */
  async function optionalActor(
    ctx: Context,
    options: { refresh?: boolean; cached?: boolean } = {},
  ): Promise<(AuthActor & { refreshed: boolean; source: PresentedToken['source'] }) | null> {
    const found = presented(ctx);
    if (!found.token) return null;
    const actor = await core.sessions.resolve(found.token, { refresh: options.refresh === true && !found.dontRemember, cached: options.cached });
    return actor ? { ...actor, source: found.source } : null;
  }

  return {
    presented,
    optionalActor,
    async requireActor(ctx: Context): Promise<AuthActor & { source: PresentedToken['source'] }> {
      const actor = await optionalActor(ctx);
      if (!actor) throw authError(401, 'UNAUTHORIZED');
      return actor;
    },
  };
}

export type SessionAuth = ReturnType<typeof createSessionAuth>;

export function requestMeta(ctx: Context): RequestMeta {
  return { ipAddress: ctx.ip ?? '', userAgent: ctx.get('user-agent') };
}
