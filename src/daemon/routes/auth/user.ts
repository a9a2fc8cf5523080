import type Router from '@koa/router';
import { authError } from '../../../core/auth/errors.js';
import { changePasswordBody, updateUserBody, verifyPasswordBody } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import { guard } from '../../guard.js';
import { requestMeta } from '../../session-auth.js';
import { assertFitsCookieCache } from './cookie-cache.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from './deps.js';

export function userRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, sessionAuth } = deps;

  router.post('/update-user', async (ctx) => {
    const raw = bodyOf(ctx);
    if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) throw authError(400, 'BODY_MUST_BE_AN_OBJECT');
    const body = guard(updateUserBody, raw, 'body');
    const actor = await sessionAuth.requireActor(ctx);
    assertFitsCookieCache(deps, {
      name: body.name ?? actor.user.name,
      email: actor.user.email,
      image: body.image === undefined ? actor.user.image : body.image,
    });
    const user = await core.auth.updateUser(actor, body);
    // The cookie is re-issued so the cookie cache, when on, carries the new profile at once.
    if (actor.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, user });
    ctx.body = { status: true };
  });

  router.post('/change-password', async (ctx) => {
    const body = guard(changePasswordBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const result = await core.auth.changePassword(actor, body, requestMeta(ctx));
    if (result.session && result.token) issueSessionCookie(deps, ctx, { session: result.session, user: result.user, token: result.token });
    ctx.body = { token: result.token, user: userToWire(result.user) };
  });

  router.post('/verify-password', async (ctx) => {
    const body = guard(verifyPasswordBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.auth.verifyPassword(actor, body.password);
    ctx.body = { status: true };
  });
}
