import { AUTH_PATH } from '../../../core/auth/account-mail.js';
import { RESET_REQUESTED_MESSAGE } from '../../../core/auth/password-reset.js';
import {
  requestPasswordResetBody,
  resetPasswordBody,
  resetPasswordCallbackQuery,
  resetPasswordQuery,
} from '../../../core/auth/schemas.js';
import { absoluteWith, redirect } from './redirect.js';
import type { AuthApi } from './route.js';

export function passwordResetRoutes(api: AuthApi): void {
  const { core } = api.deps;

  // The same answer, at once, whether or not the address has an account: the mail is written in a background step
  // (see `request`). Better Auth 1.7 removed /forget-password; the spec still lists it, so Till answers it like the
  // new name.
  api.route(
    {
      method: 'post',
      path: ['/request-password-reset', '/forget-password'],
      caller: 'public',
      body: requestPasswordResetBody,
    },
    ({ body }) => {
      core.emailFlows.passwordReset.request(body);
      return { status: true, message: RESET_REQUESTED_MESSAGE };
    },
  );

  // The link in the reset mail: on to the client's page with the token, or with ?error=INVALID_TOKEN.
  api.route(
    { method: 'get', path: '/reset-password/:token', caller: 'public', query: resetPasswordCallbackQuery },
    async ({ ctx, query }) => {
      const base = `${core.config.baseUrl}${AUTH_PATH}`;
      if (!query.callbackURL) {
        redirect(ctx, absoluteWith(`${base}/error`, base, { error: 'INVALID_TOKEN' }));
        return;
      }
      const valid = await core.emailFlows.passwordReset.isValid(ctx.params.token ?? '');
      redirect(
        ctx,
        absoluteWith(query.callbackURL, base, valid ? { token: ctx.params.token! } : { error: 'INVALID_TOKEN' }),
      );
    },
  );

  api.route(
    { method: 'post', path: '/reset-password', caller: 'public', body: resetPasswordBody, query: resetPasswordQuery },
    async ({ body, query }) => {
      await core.emailFlows.passwordReset.reset({ token: body.token || query.token, newPassword: body.newPassword });
      return { status: true };
    },
  );
}
