import { z } from 'zod';
import { accountInfoQuery, accountTokenBody, linkSocialBody, unlinkAccountBody } from '../../../core/oauth/schemas.js';
import type { AuthApi } from './route.js';

/** The account of get-access-token, refresh-token and account-info; Till sets no account cookie, so that finds none. */
function selectedAccount(selection: { accountId?: string; useAccountCookie?: unknown }): string | undefined {
  return selection.useAccountCookie ? undefined : selection.accountId;
}

/** Better Auth reads a missing unlink-account body as an empty object. */
const unlinkAccountInput = z.preprocess((raw) => raw ?? {}, unlinkAccountBody);

export function socialAccountRoutes(api: AuthApi): void {
  const { core, cookies } = api.deps;

  api.route({ method: 'get', path: '/list-accounts', caller: 'session' }, ({ actor }) =>
    core.oauth.accounts.list(actor.user.id),
  );

  api.route(
    { method: 'post', path: '/link-social', caller: 'session', body: linkSocialBody },
    async ({ ctx, actor, body }) => {
      const target = { userId: actor.user.id, email: actor.user.email };
      if (body.idToken) {
        await core.oauth.linkWithIdToken(target, { provider: body.provider, idToken: body.idToken });
        return { url: '', status: true, redirect: false };
      }
      const { url, state } = await core.oauth.start({ ...body, link: target });
      cookies.setState(ctx, state);
      if (!body.disableRedirect) ctx.set('Location', url);
      return { url, redirect: !body.disableRedirect };
    },
  );

  api.route(
    { method: 'post', path: '/unlink-account', caller: 'fresh-session', body: unlinkAccountInput },
    async ({ actor, body }) => {
      await core.oauth.accounts.unlink(actor.user.id, body);
      return { status: true };
    },
  );

  // These three answer a missing session with a bare 401, as Better Auth's do.
  api.route(
    { method: 'post', path: '/get-access-token', caller: 'session', signedOut: 'bare-401', body: accountTokenBody },
    ({ actor, body }) => core.oauth.accounts.accessToken(actor.user.id, selectedAccount(body)),
  );

  api.route(
    { method: 'post', path: '/refresh-token', caller: 'session', signedOut: 'bare-401', body: accountTokenBody },
    ({ actor, body }) => core.oauth.accounts.refreshToken(actor.user.id, selectedAccount(body)),
  );

  api.route(
    { method: 'get', path: '/account-info', caller: 'session', signedOut: 'bare-401', query: accountInfoQuery },
    ({ actor, query }) =>
      core.oauth.accounts.info(actor.user.id, query.useAccountCookie === 'true' ? undefined : query.accountId),
  );
}
