import { NotFoundError } from '../../../core/kernel/errors.js';
import { signInBody, signUpBody } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import { requestMeta } from '../../auth/session-auth.js';
import { assertFitsCookieCache } from './cookie-cache.js';
import { issueSessionCookie } from './deps.js';
import type { AuthApi } from './route.js';

export function emailPasswordRoutes(api: AuthApi): void {
  const { deps } = api;
  const { core } = deps;

  api.route({ method: 'post', path: '/sign-up/email', caller: 'public', body: signUpBody }, async ({ ctx, body }) => {
    assertFitsCookieCache(deps, { name: body.name, email: body.email, image: body.image ?? null });
    const signedUp = await core.auth.signUp(body, requestMeta(ctx));
    // With required verification nobody is signed in yet: no cookie, `token: null`.
    if (signedUp.session && signedUp.token)
      issueSessionCookie(deps, ctx, { session: signedUp.session, user: signedUp.user, token: signedUp.token });
    return { token: signedUp.token, user: userToWire(signedUp.user) };
  });

  api.route({ method: 'post', path: '/sign-in/email', caller: 'public', body: signInBody }, async ({ ctx, body }) => {
    const signedIn = await core.auth.signIn(body, requestMeta(ctx));
    issueSessionCookie(deps, ctx, signedIn);
    if (body.callbackURL) ctx.set('Location', body.callbackURL);
    return {
      redirect: Boolean(body.callbackURL),
      token: signedIn.token,
      ...(body.callbackURL ? { url: body.callbackURL } : {}),
      user: userToWire(signedIn.user),
    };
  });

  // Better Auth keeps set-password server-side; so does Till (the admin API reaches it). Listed here so the
  // reason is in one place: the route answers like any unknown path.
  api.route({ method: 'post', path: '/set-password', caller: 'public' }, () => {
    throw new NotFoundError();
  });
}
