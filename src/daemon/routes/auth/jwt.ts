import type { Context } from 'koa';
import type { UserWire } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import type { CoreContext } from '../../../core/context.js';
import type { AuthApi } from './route.js';

const JWT_HEADER = 'set-auth-jwt';

/** Better Auth's jwt plugin: the public keys, and a token for the signed-in user. */
export function jwtRoutes(api: AuthApi): void {
  const { core } = api.deps;

  api.route({ method: 'get', path: '/jwks', caller: 'public' }, () => core.jwt.jwks());

  api.route({ method: 'get', path: '/token', caller: 'session' }, async ({ actor }) => ({
    token: await core.jwt.sign(userToWire(actor.user)),
  }));
}

/**
 * Puts a token for the session's user in `set-auth-jwt` of a get-session answer, and lets browsers read it
 * cross-origin. The expose list is appended to: the session cookie's headers may already have named their own.
 */
export async function setAuthJwtHeader(ctx: Context, core: CoreContext, user: UserWire): Promise<void> {
  ctx.set(JWT_HEADER, await core.jwt.sign(user));
  const exposed = ctx.response.get('Access-Control-Expose-Headers');
  const names = exposed
    ? exposed
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
    : [];
  if (!names.some((name) => name.toLowerCase() === JWT_HEADER)) names.push(JWT_HEADER);
  ctx.set('Access-Control-Expose-Headers', names.join(', '));
}
