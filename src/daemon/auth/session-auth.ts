import type { Context } from 'koa';
import type { AuthActor, RequestMeta } from '../../core/auth/sessions.js';
import type { CoreContext } from '../../core/context.js';
import type { AuthCookies } from './cookies.js';
import { apiKeyOf, bearerOf, bearerSessionToken } from './credentials.js';

export interface PresentedToken {
  token: string | null;
  source: 'cookie' | 'bearer' | 'api-key' | null;
  dontRemember: boolean;
}

/**
 * Finds the session a request presents: `Authorization: Bearer <token>` (raw, or the signed cookie value) for the
 * CLI and scripts, else the signed session cookie. An API key (`x-api-key`, or a key-shaped bearer value, so that
 * TILL_TOKEN may hold one) stands for its user, as with Better Auth's api-key plugin.
 */
export function createSessionAuth(core: CoreContext, cookies: AuthCookies) {
  function presented(ctx: Context): PresentedToken {
    const bearer = bearerOf(ctx);
    const apiKey = apiKeyOf(ctx, bearer);
    if (apiKey) return { token: apiKey, source: 'api-key', dontRemember: false };
    // A bearer header, even an empty one, rules out the cookie.
    if (bearer !== null)
      return { token: bearerSessionToken(cookies, bearer) || null, source: 'bearer', dontRemember: false };
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
    // A key that does not verify is an error (Better Auth's 401/403/429), not an absent session.
    if (found.source === 'api-key')
      return { ...(await core.apiKeys.authenticate(found.token, { cached: options.cached })), source: found.source };
    const actor = await core.sessions.resolve(found.token, {
      refresh: options.refresh === true && !found.dontRemember,
      cached: options.cached,
    });
    return actor ? { ...actor, source: found.source } : null;
  }

  // What a route answers without a session is the route declaration's business (routes/auth/route.ts).
  return { presented, optionalActor };
}

export type SessionAuth = ReturnType<typeof createSessionAuth>;

export function requestMeta(ctx: Context): RequestMeta {
  return { ipAddress: ctx.ip ?? '', userAgent: ctx.get('user-agent') };
}
