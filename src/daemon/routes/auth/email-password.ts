import type Router from '@koa/router';
import { NotFoundError } from '../../../core/kernel/errors.js';
import { signInBody, signUpBody } from '../../../core/auth/schemas.js';
import { userToWire } from '../../../core/auth/wire.js';
import { guard } from '../../guard.js';
import { requestMeta } from '../../session-auth.js';
import { assertFitsCookieCache } from './cookie-cache.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from './deps.js';

export function emailPasswordRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core } = deps;

  router.post('/sign-up/email', async (ctx) => {
    const body = guard(signUpBody, bodyOf(ctx), 'body');
    assertFitsCookieCache(deps, { name: body.name, email: body.email, image: body.image ?? null });
    const signedUp = await core.auth.signUp(body, requestMeta(ctx));
    // With required verification nobody is signed in yet: no cookie, `token: null`.
    if (signedUp.session && signedUp.token) issueSessionCookie(deps, ctx, { session: signedUp.session, user: signedUp.user, token: signedUp.token });
    ctx.body = { token: signedUp.token, user: userToWire(signedUp.user) };
  });

  router.post('/sign-in/email', async (ctx) => {
    const body = guard(signInBody, bodyOf(ctx), 'body');
    const signedIn = await core.auth.signIn(body, requestMeta(ctx));
    issueSessionCookie(deps, ctx, signedIn);
    if (body.callbackURL) ctx.set('Location', body.callbackURL);
    ctx.body = {
      redirect: Boolean(body.callbackURL),
      token: signedIn.token,
      ...(body.callbackURL ? { url: body.callbackURL } : {}),
      user: userToWire(signedIn.user),
    };
  });

  // Better Auth keeps set-password server-side; so does Till (the admin API reaches it). Listed here so the
  // reason is in one place: the route answers like any unknown path.
  router.post('/set-password', () => {
    throw new NotFoundError();
  });
}
