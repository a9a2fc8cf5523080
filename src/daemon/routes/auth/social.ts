import type Router from '@koa/router';
import type { Context } from 'koa';
import { userToWire } from '../../../core/auth/wire.js';
import { socialSignInBody } from '../../../core/oauth/schemas.js';
import { guard } from '../../guard.js';
import { requestMeta } from '../../session-auth.js';
import { bodyOf, issueSessionCookie, type AuthRouteDeps } from './deps.js';
import { redirect } from './redirect.js';

/** The first value of a query or form parameter, as a string. */
function param(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

export function socialRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, cookies } = deps;

  router.post('/sign-in/social', async (ctx) => {
    const body = guard(socialSignInBody, bodyOf(ctx), 'body');
    if (body.idToken) {
      const signedIn = await core.oauth.signInWithIdToken({ provider: body.provider, requestSignUp: body.requestSignUp, idToken: body.idToken }, requestMeta(ctx));
      issueSessionCookie(deps, ctx, signedIn);
      ctx.body = { redirect: false, token: signedIn.token, user: userToWire(signedIn.user) };
      return;
    }
    const { url, state } = await core.oauth.start(body);
    cookies.setState(ctx, state);
    if (!body.disableRedirect) ctx.set('Location', url);
    ctx.body = { url, redirect: !body.disableRedirect };
  });

  router.get('/callback/:id', async (ctx: Context) => {
    const query = ctx.query as Record<string, unknown>;
    const outcome = await core.oauth.callback(
      {
        providerId: ctx.params.id!,
        state: param(query, 'state'),
        code: param(query, 'code'),
        error: param(query, 'error'),
        errorDescription: param(query, 'error_description'),
        deviceId: param(query, 'device_id'),
        cookieState: cookies.readState(ctx),
      },
      requestMeta(ctx),
    );
    cookies.clearState(ctx);
    if (outcome.signedIn) issueSessionCookie(deps, ctx, outcome.signedIn);
    redirect(ctx, outcome.location);
  });

  // form_post (Apple): the browser's cross-site POST carries no SameSite=Lax cookies, so it is turned into a
  // same-site GET that does, with the form's fields over the query's.
  router.post('/callback/:id', (ctx: Context) => {
    const merged = new URLSearchParams();
    const form = (bodyOf(ctx) ?? {}) as Record<string, unknown>;
    for (const source of [ctx.query as Record<string, unknown>, form]) {
      for (const name of Object.keys(source)) {
        const value = param(source, name);
        if (value !== undefined) merged.set(name, value);
      }
    }
    redirect(ctx, `${core.config.baseUrl}/api/auth/callback/${encodeURIComponent(ctx.params.id!)}?${merged.toString()}`);
  });
}
