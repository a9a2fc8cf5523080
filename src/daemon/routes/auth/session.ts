import { authError } from '../../../core/auth/errors.js';
import { emptyBody, getSessionQuery, revokeSessionBody, signOutBody } from '../../../core/auth/schemas.js';
import { hashSessionToken } from '../../../core/auth/sessions.js';
import { sessionToWire, userToWire } from '../../../core/auth/wire.js';
import { issueSessionCookie } from './deps.js';
import { setAuthJwtHeader } from './jwt.js';
import { respondNull, type AuthApi } from './route.js';

export function sessionRoutes(api: AuthApi): void {
  const { deps } = api;
  const { core, cookies, sessionAuth } = deps;

  // Public, and reads the session itself: the cookie cache may answer without a database read, and a missing or
  // expired session is a JSON null, not a 401.
  api.route(
    { method: 'get', path: '/get-session', caller: 'public', query: getSessionQuery },
    async ({ ctx, query }) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      const presented = sessionAuth.presented(ctx);
      if (!presented.token) {
        // A cookie whose signature fails is as good as none, and is cleared like an expired one.
        if (presented.source === 'cookie') cookies.clear(ctx);
        respondNull(ctx);
        return;
      }
      if (
        presented.source === 'cookie' &&
        core.config.session.cookieCache.enabled &&
        query.disableCookieCache !== 'true'
      ) {
        const cached = cookies.readSessionData(ctx, core.clock.now().getTime());
        if (cached && cached.session.token === presented.token) {
          ctx.body = cached;
          await setAuthJwtHeader(ctx, core, cached.user);
          return;
        }
      }
      const actor = await sessionAuth.optionalActor(ctx, {
        refresh: query.disableRefresh !== 'true',
        cached: query.disableCookieCache !== 'true',
      });
      if (!actor) {
        if (presented.source === 'cookie') cookies.clear(ctx);
        respondNull(ctx);
        return;
      }
      if (actor.source === 'cookie' && (actor.refreshed || core.config.session.cookieCache.enabled))
        issueSessionCookie(deps, ctx, actor);
      const user = userToWire(actor.user);
      ctx.body = { session: sessionToWire(actor.session, actor.token, core.config.organizations.teams), user };
      await setAuthJwtHeader(ctx, core, user);
    },
  );

  // Better Auth accepts POST here only with deferred session refresh, which Till does not offer.
  api.route({ method: 'post', path: '/get-session', caller: 'public' }, () => {
    throw authError(405, 'METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED');
  });

  api.route({ method: 'post', path: '/sign-out', caller: 'optional', body: signOutBody }, async ({ ctx, actor }) => {
    if (actor) await core.sessions.end(actor.session);
    cookies.clear(ctx);
    return { success: true };
  });

  api.route({ method: 'get', path: '/list-sessions', caller: 'fresh-session' }, async ({ actor }) => {
    const sessions = await core.sessions.list(actor.user.id);
    // Only digests of other sessions' tokens are stored; they serve as revocation handles for revoke-session.
    return sessions.map((session) =>
      sessionToWire(
        session,
        session.id === actor.session.id ? actor.token : session.tokenHash,
        core.config.organizations.teams,
      ),
    );
  });

  api.route(
    { method: 'post', path: '/revoke-session', caller: 'session', body: revokeSessionBody },
    async ({ ctx, actor, body }) => {
      await core.sessions.revoke(actor.user.id, body.token);
      if (body.token === actor.token || body.token === hashSessionToken(actor.token)) cookies.clear(ctx);
      return { status: true };
    },
  );

  api.route(
    { method: 'post', path: '/revoke-sessions', caller: 'session', body: emptyBody },
    async ({ ctx, actor }) => {
      await core.sessions.revokeAll(actor.user.id);
      cookies.clear(ctx);
      return { status: true };
    },
  );

  api.route(
    { method: 'post', path: '/revoke-other-sessions', caller: 'session', body: emptyBody },
    async ({ actor }) => {
      await core.sessions.revokeOthers(actor.user.id, actor.session.id);
      return { status: true };
    },
  );
}
