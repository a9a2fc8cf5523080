import type Router from '@koa/router';
import { userToWire } from '../../../core/auth/wire.js';
import { cliExchangeBody } from '../../../core/oauth/schemas.js';
import { guard } from '../../guard.js';
import { bodyOf, type AuthRouteDeps } from './deps.js';

/** Till's extension: `till login --provider` trades the loopback's one-time code and its verifier for a session token. */
export function cliExchangeRoutes(router: Router, deps: AuthRouteDeps): void {
  router.post('/cli/exchange', async (ctx) => {
    const body = guard(cliExchangeBody, bodyOf(ctx), 'body');
    const { token, user } = await deps.core.oauth.cliHandoff.exchange(body);
    // No cookie: the caller is the CLI, which keeps the bearer token in its profile.
    ctx.body = { token, user: userToWire(user) };
  });
}
