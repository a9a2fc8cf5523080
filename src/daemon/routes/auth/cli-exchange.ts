import { userToWire } from '../../../core/auth/wire.js';
import { cliExchangeBody } from '../../../core/oauth/schemas.js';
import type { AuthApi } from './route.js';

/** Till's extension: `till login --provider` trades the loopback's one-time code and its verifier for a session token. */
export function cliExchangeRoutes(api: AuthApi): void {
  api.route({ method: 'post', path: '/cli/exchange', caller: 'public', body: cliExchangeBody }, async ({ body }) => {
    const { token, user } = await api.deps.core.oauth.cliHandoff.exchange(body);
    // No cookie: the caller is the CLI, which keeps the bearer token in its profile.
    return { token, user: userToWire(user) };
  });
}
