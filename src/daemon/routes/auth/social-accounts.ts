import type Router from '@koa/router';
import type { Context } from 'koa';
import { authError } from '../../../core/auth/errors.js';
import { accountInfoQuery, accountTokenBody, linkSocialBody, unlinkAccountBody } from '../../../core/oauth/schemas.js';
import { guard } from '../../guard.js';
import { bodyOf, type AuthRouteDeps } from './deps.js';

/** The account of get-access-token, refresh-token and account-info; Till sets no account cookie, so that finds none. */
function selectedAccount(selection: { accountId?: string; useAccountCookie?: unknown }): string | undefined {
  return selection.useAccountCookie ? undefined : selection.accountId;
}

export function socialAccountRoutes(router: Router, deps: AuthRouteDeps): void {
  const { core, cookies, sessionAuth } = deps;

  /** These routes answer a missing session with a bare 401, as Better Auth's do. */
  async function actorOrBare401(ctx: Context) {
    const actor = await sessionAuth.optionalActor(ctx);
    if (!actor) {
      ctx.body = null;
      ctx.status = 401;
    }
    return actor;
  }

  router.get('/list-accounts', async (ctx) => {
    const actor = await sessionAuth.requireActor(ctx);
    ctx.body = await core.oauth.accounts.list(actor.user.id);
  });

  router.post('/link-social', async (ctx) => {
    const body = guard(linkSocialBody, bodyOf(ctx), 'body');
    const actor = await sessionAuth.requireActor(ctx);
    const target = { userId: actor.user.id, email: actor.user.email };
    if (body.idToken) {
      await core.oauth.linkWithIdToken(target, { provider: body.provider, idToken: body.idToken });
      ctx.body = { url: '', status: true, redirect: false };
      return;
    }
    const { url, state } = await core.oauth.start({ ...body, link: target });
    cookies.setState(ctx, state);
    if (!body.disableRedirect) ctx.set('Location', url);
    ctx.body = { url, redirect: !body.disableRedirect };
  });

  router.post('/unlink-account', async (ctx) => {
    const body = guard(unlinkAccountBody, bodyOf(ctx) ?? {}, 'body');
    const actor = await sessionAuth.requireActor(ctx);
    if (!core.sessions.isFresh(actor.session)) throw authError(403, 'SESSION_NOT_FRESH');
    await core.oauth.accounts.unlink(actor.user.id, body);
    ctx.body = { status: true };
  });

  router.post('/get-access-token', async (ctx) => {
    const body = guard(accountTokenBody, bodyOf(ctx), 'body');
    const actor = await actorOrBare401(ctx);
    if (actor) ctx.body = await core.oauth.accounts.accessToken(actor.user.id, selectedAccount(body));
  });

  router.post('/refresh-token', async (ctx) => {
    const body = guard(accountTokenBody, bodyOf(ctx), 'body');
    const actor = await actorOrBare401(ctx);
    if (actor) ctx.body = await core.oauth.accounts.refreshToken(actor.user.id, selectedAccount(body));
  });

  router.get('/account-info', async (ctx) => {
    const query = guard(accountInfoQuery, ctx.query, 'query');
    const actor = await actorOrBare401(ctx);
    if (actor) ctx.body = await core.oauth.accounts.info(actor.user.id, query.useAccountCookie === 'true' ? undefined : query.accountId);
  });
}
