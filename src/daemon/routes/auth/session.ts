import type Router from '@koa/router';
import type { Context } from 'koa';
import { authError } from '../../../core/auth/errors.js';
import { emptyBody, getSessionQuery, revokeSessionBody, signOutBody } from '../../../core/auth/schemas.js';
import { hashSessionToken } from '../../../core/auth/sessions.js';
import { sessionToWire, userToWire } from '../../../core/auth/wire.js';
import { guard } from '../../guard.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from './deps.js';
import { setAuthJwtHeader } from './jwt.js';

/** Better Auth answers a missing session with a literal JSON `null` and status 200. */
function respondNull(ctx: Context): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = 'null';
}

export function sessionRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, cookies, sessionAuth } = deps;

  router.get('/get-session', async (ctx) => {
    const query = guard(getSessionQuery, ctx.query, 'query');
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const presented = sessionAuth.presented(ctx);
    if (!presented.token) {
      // A cookie whose signature fails is as good as none, and is cleared like an expired one.
      if (presented.source === 'cookie') cookies.clear(ctx);
      respondNull(ctx);
      return;
    }
    if (presented.source === 'cookie' && core.config.session.cookieCache.enabled && query.disableCookieCache !== 'true') {
      const cached = cookies.readSessionData(ctx, core.clock.now().getTime());
      if (cached && cached.session.token === presented.token) {
        ctx.body = cached;
        await setAuthJwtHeader(ctx, core, cached.user);
        return;
      }
    }
    const actor = await sessionAuth.optionalActor(ctx, { refresh: query.disableRefresh !== 'true', cached: query.disableCookieCache !== 'true' });
    if (!actor) {
      if (presented.source === 'cookie') cookies.clear(ctx);
      respondNull(ctx);
      return;
    }
    if (actor.source === 'cookie' && (actor.refreshed || core.config.session.cookieCache.enabled)) issueSessionCookie(deps, ctx, actor);
    const user = userToWire(actor.user);
    ctx.body = { session: sessionToWire(actor.session, actor.token, core.config.organizations.teams), user };
    await setAuthJwtHeader(ctx, core, user);
  });

  // Better Auth accepts POST here only with deferred session refresh, which Till does not offer.
  router.post('/get-session', () => {
    throw authError(405, 'METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED');
  });

  router.post('/sign-out', async (ctx) => {
    guard(signOutBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.optionalActor(ctx);
    if (actor) await core.sessions.end(actor.session);
    cookies.clear(ctx);
    ctx.body = { success: true };
  });

  router.get('/list-sessions', async (ctx) => {
    const actor = await sessionAuth.requireActor(ctx);
    if (!core.sessions.isFresh(actor.session)) throw authError(403, 'SESSION_NOT_FRESH');
    const sessions = await core.sessions.list(actor.user.id);
    // Only digests of other sessions' tokens are stored; they serve as revocation handles for revoke-session.
    ctx.body = sessions.map((session) => sessionToWire(session, session.id === actor.session.id ? actor.token : session.tokenHash, core.config.organizations.teams));
  });

  router.post('/revoke-session', async (ctx) => {
    const body = guard(revokeSessionBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.sessions.revoke(actor.user.id, body.token);
    if (body.token === actor.token || body.token === hashSessionToken(actor.token)) cookies.clear(ctx);
    ctx.body = { status: true };
  });

  router.post('/revoke-sessions', async (ctx) => {
    guard(emptyBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.sessions.revokeAll(actor.user.id);
    cookies.clear(ctx);
    ctx.body = { status: true };
  });

  router.post('/revoke-other-sessions', async (ctx) => {
    guard(emptyBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.sessions.revokeOthers(actor.user.id, actor.session.id);
    ctx.body = { status: true };
  });
}
