import type { Context } from 'koa';
import { looksLikeAccessToken } from '../../core/access-tokens/service.js';
import type { AuthActor } from '../../core/auth/sessions.js';
import type { CoreContext } from '../../core/context.js';
import { unauthorized } from '../../core/polar-api/errors.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { MerchantActor } from '../../core/polar-api/actor.js';
import { membersRepository } from '../../core/organizations/repository.js';
import type { AuthCookies } from './cookies.js';
import { apiKeyOf, bearerOf, bearerSessionToken } from './credentials.js';

/**
 * Who calls /v1: `Authorization: Bearer` with an organization access token, a member's session token (raw or
 * signed, as the CLI holds it) or API key; `x-api-key` works too. Cookies are not accepted here, so /v1 needs no
 * CSRF defence. Anything that does not verify is a 401 in Polar's shape.
 */
export function createV1Auth(core: CoreContext, cookies: AuthCookies) {
  async function userActor(found: AuthActor): Promise<MerchantActor> {
    const memberships = await membersRepository(core.db).listForUser(found.user.id);
    return {
      kind: 'user',
      userId: found.user.id,
      activeOrganizationId: found.session.activeOrganizationId,
      roles: new Map(memberships.map((member) => [member.organizationId, member.role])),
      auth: found,
    };
  }

  return async function authenticate(ctx: Context): Promise<MerchantActor> {
    const bearer = bearerOf(ctx) ?? '';
    const apiKey = apiKeyOf(ctx, bearer);
    if (apiKey) {
      try {
        return await userActor(await core.apiKeys.authenticate(apiKey, { cached: true }));
      } catch (error) {
        if (error instanceof DomainError && error.status === 429)
          throw new DomainError(429, 'TooManyRequests', error.message, { headers: error.headers });
        throw unauthorized();
      }
    }
    if (!bearer) throw unauthorized();
    if (looksLikeAccessToken(bearer)) {
      const token = await core.accessTokens.authenticate(bearer);
      if (!token) throw unauthorized();
      return {
        kind: 'organization',
        tokenId: token.id,
        organizationId: token.organizationId,
        scopes: new Set(token.scopes),
      };
    }
    const sessionToken = bearerSessionToken(cookies, bearer);
    const session = sessionToken ? await core.sessions.resolve(sessionToken, { refresh: false, cached: true }) : null;
    if (!session) throw unauthorized();
    return userActor(session);
  };
}
