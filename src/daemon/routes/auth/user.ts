import type { Context } from 'koa';
import { authError } from '../../../core/auth/errors.js';
import { changePasswordBody, updateUserBody, verifyPasswordBody } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import { requestMeta } from '../../auth/session-auth.js';
import { assertFitsCookieCache } from './cookie-cache.js';
import { issueSessionCookie } from './deps.js';
import type { AuthApi } from './route.js';

/** Better Auth refuses a body that is not an object before it validates the fields. */
function bodyMustBeAnObject(_ctx: Context, raw: unknown): void {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw)))
    throw authError(400, 'BODY_MUST_BE_AN_OBJECT');
}

export function userRoutes(api: AuthApi): void {
  const { deps } = api;
  const { core } = deps;

  api.route(
    { method: 'post', path: '/update-user', caller: 'session', precondition: bodyMustBeAnObject, body: updateUserBody },
    async ({ ctx, actor, body }) => {
      assertFitsCookieCache(deps, {
        name: body.name ?? actor.user.name,
        email: actor.user.email,
        image: body.image === undefined ? actor.user.image : body.image,
      });
      const user = await core.auth.updateUser(actor, body);
      // The cookie is re-issued so the cookie cache, when on, carries the new profile at once.
      if (actor.source === 'cookie') issueSessionCookie(deps, ctx, { ...actor, user });
      return { status: true };
    },
  );

  api.route(
    { method: 'post', path: '/change-password', caller: 'session', body: changePasswordBody },
    async ({ ctx, actor, body }) => {
      const result = await core.auth.changePassword(actor, body, requestMeta(ctx));
      if (result.session && result.token)
        issueSessionCookie(deps, ctx, { session: result.session, user: result.user, token: result.token });
      return { token: result.token, user: userToWire(result.user) };
    },
  );

  api.route(
    { method: 'post', path: '/verify-password', caller: 'session', body: verifyPasswordBody },
    async ({ actor, body }) => {
      await core.auth.verifyPassword(actor, body.password);
      return { status: true };
    },
  );
}
