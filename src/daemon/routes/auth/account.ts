import type Router from '@koa/router';
import { changeEmailBody, deleteUserBody, deleteUserCallbackQuery } from '../../../core/auth/schemas.js';
import { guard } from '../../guard.js';
import { bodyOf, type AuthRouteDeps } from './deps.js';
import { redirect } from './redirect.js';

const DELETED = { success: true, message: 'User deleted' };

export function accountRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, cookies, sessionAuth } = deps;

  router.post('/change-email', async (ctx) => {
    const body = guard(changeEmailBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    await core.emailFlows.changeEmail.request(actor, body);
    ctx.body = { status: true };
  });

  router.post('/delete-user', async (ctx) => {
    const body = guard(deleteUserBody, bodyOf(ctx), 'body') ?? {};
    const actor = await sessionAuth.requireActor(ctx);
    const outcome = await core.emailFlows.deleteUser.request(actor, body);
    if (outcome === 'verification-sent') {
      ctx.body = { success: true, message: 'Verification email sent' };
      return;
    }
    cookies.clear(ctx);
    ctx.body = DELETED;
  });

  // The link in the deletion mail; it only works in a browser (or client) holding that user's session.
  router.get('/delete-user/callback', async (ctx) => {
    const query = guard(deleteUserCallbackQuery, ctx.query, 'query');
    const actor = await sessionAuth.optionalActor(ctx);
    await core.emailFlows.deleteUser.complete(actor, query.token);
    cookies.clear(ctx);
    if (query.callbackURL) {
      redirect(ctx, query.callbackURL);
      return;
    }
    ctx.body = DELETED;
  });
}
