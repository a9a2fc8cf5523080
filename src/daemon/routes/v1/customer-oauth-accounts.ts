import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import { ACCOUNT_PLATFORMS } from '../../../core/customer-accounts/repository.js';
import { bearerOf } from '../../auth/credentials.js';
import type { V1Api } from './operation.js';

const authorizeQuery = z.object({
  platform: z.enum(ACCOUNT_PLATFORMS),
  customer_session_token: z.string().max(200).optional(),
  return_to: z.string().min(1).max(2000),
});
const callbackQuery = z.object({
  state: z.string().max(4000).optional(),
  code: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
});

/**
 * The customer portal's "connect GitHub / Discord": a browser navigation (hence the session token in the query, or
 * the usual bearer header) to the provider and back. The callback stores the account and retries waiting grants.
 */
export function registerCustomerOAuthAccountRoutes(api: V1Api, core: CoreContext): void {
  const service = core.customerAccounts;
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/oauth-accounts/authorize',
      operationId: 'customer_portal:oauth-accounts:authorize',
      tag: 'customer_portal',
      summary: 'Connect a GitHub or Discord account to the customer: redirects to the provider (Till)',
      query: authorizeQuery,
      responseDescription: 'A redirect to the provider’s authorization page.',
    },
    async ({ ctx, query }) => {
      const url = await service.authorizeUrl({
        token: query.customer_session_token ?? bearerOf(ctx) ?? undefined,
        platform: query.platform,
        returnTo: query.return_to,
      });
      ctx.redirect(url);
      return undefined;
    },
  );
  api.publicOp(
    {
      method: 'get',
      path: '/v1/customer-portal/oauth-accounts/callback',
      operationId: 'customer_portal:oauth-accounts:callback',
      tag: 'customer_portal',
      summary: 'Where the provider returns the customer; redirects to the portal’s return_to (Till)',
      query: callbackQuery,
      responseDescription: 'A redirect to return_to, with `connected=true` or `error=<code>` and `platform`.',
    },
    async ({ ctx, query }) => {
      ctx.redirect(await service.callback(query));
      return undefined;
    },
  );
}
