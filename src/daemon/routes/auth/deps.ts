import type { Context } from 'koa';
import type { Session, User } from '../../../core/auth/repository.js';
import { sessionToWire, userToWire } from '../../../core/auth/wire.js';
import type { CoreContext } from '../../../core/context.js';
import type { AuthCookies } from '../../auth/cookies.js';
import type { SessionAuth } from '../../auth/session-auth.js';
import type { TrustedOrigins } from '../../auth/trusted-origins.js';

export interface AuthRouteDeps {
  core: CoreContext;
  cookies: AuthCookies;
  sessionAuth: SessionAuth;
  trusted: TrustedOrigins;
}

/** Issues the session cookie (and the cookie cache, when on) for a new or refreshed session. */
export function issueSessionCookie(
  deps: AuthRouteDeps,
  ctx: Context,
  signedIn: { session: Session; user: User; token: string },
): void {
  deps.cookies.setSession(ctx, signedIn.token, {
    rememberMe: signedIn.session.rememberMe,
    cache: {
      session: sessionToWire(signedIn.session, signedIn.token, deps.core.config.organizations.teams),
      user: userToWire(signedIn.user),
      now: deps.core.clock.now().getTime(),
    },
  });
}
