import { changeEmailBody, deleteUserBody, deleteUserCallbackQuery } from '../../../core/auth/schemas.js';
import { redirect } from './redirect.js';
import type { AuthApi } from './route.js';

const DELETED = { success: true, message: 'User deleted' };

export function accountRoutes(api: AuthApi): void {
  const { core, cookies } = api.deps;

  api.route(
    { method: 'post', path: '/change-email', caller: 'session', body: changeEmailBody },
    async ({ actor, body }) => {
      await core.emailFlows.changeEmail.request(actor, body);
      return { status: true };
    },
  );

  api.route(
    { method: 'post', path: '/delete-user', caller: 'session', body: deleteUserBody },
    async ({ ctx, actor, body }) => {
      const outcome = await core.emailFlows.deleteUser.request(actor, body ?? {});
      if (outcome === 'verification-sent') return { success: true, message: 'Verification email sent' };
      cookies.clear(ctx);
      return DELETED;
    },
  );

  // The link in the deletion mail; it only works in a browser (or client) holding that user's session.
  api.route(
    { method: 'get', path: '/delete-user/callback', caller: 'optional', query: deleteUserCallbackQuery },
    async ({ ctx, actor, query }) => {
      await core.emailFlows.deleteUser.complete(actor, query.token);
      cookies.clear(ctx);
      if (query.callbackURL) {
        redirect(ctx, query.callbackURL);
        return undefined;
      }
      return DELETED;
    },
  );
}
