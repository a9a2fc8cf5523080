import type Router from '@koa/router';
import type { Context } from 'koa';
import { AUTH_PATH } from '../../../core/auth/account-mail.js';
import { RESET_REQUESTED_MESSAGE } from '../../../core/auth/password-reset.js';
import { requestPasswordResetBody, resetPasswordBody, resetPasswordCallbackQuery, resetPasswordQuery } from '../../../core/auth/schemas.js';
import { guard } from '../../guard.js';
import { bodyOf, type AuthRouteDeps } from './deps.js';
import { absoluteWith, redirect } from './redirect.js';

export function passwordResetRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core } = deps;

  // The same answer, after the same work, whether or not the address has an account.
  const requestReset = async (ctx: Context) => {
    const body = guard(requestPasswordResetBody, bodyOf(ctx), 'body');
    await core.emailFlows.passwordReset.request(body);
    ctx.body = { status: true, message: RESET_REQUESTED_MESSAGE };
  };
  router.post('/request-password-reset', requestReset);
  // Better Auth 1.7 removed this name; the spec still lists it, so Till answers it like the new one.
  router.post('/forget-password', requestReset);

  // The link in the reset mail: on to the client's page with the token, or with ?error=INVALID_TOKEN.
  router.get('/reset-password/:token', async (ctx) => {
    const query = guard(resetPasswordCallbackQuery, ctx.query, 'query');
    const base = `${core.config.baseUrl}${AUTH_PATH}`;
    if (!query.callbackURL) {
      redirect(ctx, absoluteWith(`${base}/error`, base, { error: 'INVALID_TOKEN' }));
      return;
    }
    const valid = await core.emailFlows.passwordReset.isValid(ctx.params.token ?? '');
    redirect(ctx, absoluteWith(query.callbackURL, base, valid ? { token: ctx.params.token! } : { error: 'INVALID_TOKEN' }));
  });

  router.post('/reset-password', async (ctx) => {
    const body = guard(resetPasswordBody, bodyOf(ctx), 'body');
    const query = guard(resetPasswordQuery, ctx.query, 'query');
    await core.emailFlows.passwordReset.reset({ token: body.token || query.token, newPassword: body.newPassword });
    ctx.body = { status: true };
  });
}
