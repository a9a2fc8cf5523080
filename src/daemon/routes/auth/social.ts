import { z } from 'zod';
import { userToWire } from '../../../core/auth/wire.js';
import { socialSignInBody } from '../../../core/oauth/schemas.js';
import { requestMeta } from '../../auth/session-auth.js';
import { issueSessionCookie } from './deps.js';
import { redirect } from './redirect.js';
import type { AuthApi } from './route.js';

/** The first value of a query or form parameter, as a string. */
function param(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/** A provider's form_post fields, taken as they come: whatever is not a string is ignored. */
const formPostBody = z.unknown();

/**
 * What a form_post carries over to the GET: the OAuth response parameters (RFC 6749 §4.1.2, RFC 9207's iss, Apple's
 * user) and nothing else, each within a length that keeps the redirect far below any header limit.
 */
const FORM_POST_FIELDS = new Set([
  'code',
  'state',
  'error',
  'error_description',
  'error_uri',
  'iss',
  'user',
  'device_id',
]);
const MAX_FORM_POST_FIELD = 2048;

export function socialRoutes(api: AuthApi): void {
  const { deps } = api;
  const { core, cookies } = deps;

  api.route(
    { method: 'post', path: '/sign-in/social', caller: 'public', body: socialSignInBody },
    async ({ ctx, body }) => {
      if (body.idToken) {
        const signedIn = await core.oauth.signInWithIdToken(
          { provider: body.provider, requestSignUp: body.requestSignUp, idToken: body.idToken },
          requestMeta(ctx),
        );
        issueSessionCookie(deps, ctx, signedIn);
        return { redirect: false, token: signedIn.token, user: userToWire(signedIn.user) };
      }
      const { url, state } = await core.oauth.start(body);
      cookies.setState(ctx, state);
      if (!body.disableRedirect) ctx.set('Location', url);
      return { url, redirect: !body.disableRedirect };
    },
  );

  api.route({ method: 'get', path: '/callback/:id', caller: 'public' }, async ({ ctx }) => {
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
  api.route({ method: 'post', path: '/callback/:id', caller: 'public', body: formPostBody }, ({ ctx, body }) => {
    const merged = new URLSearchParams();
    const form = (body ?? {}) as Record<string, unknown>;
    for (const source of [ctx.query as Record<string, unknown>, form]) {
      for (const name of Object.keys(source)) {
        if (!FORM_POST_FIELDS.has(name)) continue;
        const value = param(source, name);
        if (value !== undefined && value.length <= MAX_FORM_POST_FIELD) merged.set(name, value);
      }
    }
    redirect(
      ctx,
      `${core.config.baseUrl}/api/auth/callback/${encodeURIComponent(ctx.params.id!)}?${merged.toString()}`,
    );
  });
}
