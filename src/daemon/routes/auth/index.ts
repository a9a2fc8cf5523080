import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { readBody } from '../../middleware/body.js';
import { checkOrigin, checkRedirectTargets } from '../../middleware/origin.js';
import type { createRateLimiter } from '../../middleware/rate-limit.js';
import { accountRoutes } from './account.js';
import { apiKeyRoutes } from './api-keys.js';
import type { AuthRouteDeps } from './deps.js';
import { cliExchangeRoutes } from './cli-exchange.js';
import { emailPasswordRoutes } from './email-password.js';
import { jwtRoutes } from './jwt.js';
import { organizationRoutes } from './organization/index.js';
import { pageRoutes } from './pages.js';
import { AuthApi, type AuthRouteSpec, type Caller } from './route.js';
import { passwordResetRoutes } from './password-reset.js';
import { sessionRoutes } from './session.js';
import { socialAccountRoutes } from './social-accounts.js';
import { socialRoutes } from './social.js';
import { userRoutes } from './user.js';
import { verificationRoutes } from './verification.js';

export const AUTH_BASE_PATH = '/api/auth';
const FORM_ROUTES = new Set(['/sign-in/email', '/sign-up/email']);
const isCallback = (path: string) => path.startsWith('/callback/');

/**
 * Better Auth's wire contract under /api/auth. Before any route runs: the per-address rate limit, the body (read
 * once, size-capped), the origin/CSRF rules and the callback URL allow-list. The routes are declared in route.ts's
 * terms, one module per Better Auth plugin or concern.
 */
export function authRouter(deps: AuthRouteDeps, rateLimiter: ReturnType<typeof createRateLimiter> | null): Router {
  const router = new Router({ prefix: AUTH_BASE_PATH });

  // Mounted on '' rather than on nothing: @koa/router matches a path-less use() against the prefix case-sensitively
  // while routes match case-insensitively, so `/API/AUTH/…` reached the routes without these checks.
  router.use('', async (ctx: Context, next: Next) => {
    // Lower-cased as the router matches (case-insensitively), so `/SIGN-IN/EMAIL` meets the same rules as `/sign-in/email`.
    const path = (ctx.path.slice(AUTH_BASE_PATH.length) || '/').toLowerCase();
    if (rateLimiter && path !== '/ok') rateLimiter.hit(ctx.ip ?? '', path);
    if (ctx.method === 'POST') {
      ctx.state.body = await readBody(ctx, {
        maxBytes: deps.core.config.maxBodyBytes,
        allowForm: FORM_ROUTES.has(path) || isCallback(path),
      });
    }
    // A provider's form_post comes from the provider's origin; the route only turns it into a GET.
    if (!isCallback(path)) checkOrigin(ctx, path, deps.trusted);
    checkRedirectTargets([ctx.state.body, ctx.query], deps.trusted, path === '/sign-in/social');
    await next();
  });

  declareRoutes(new AuthApi(router, deps));
  return router;
}

/**
 * Every route /api/auth declares, with its method, paths and input schemas, as `authRouter` registers them (on a
 * router nobody mounts). The fuzz suite walks this table.
 */
export function authRouteTable(deps: AuthRouteDeps): ReadonlyArray<AuthRouteSpec<Caller, z.ZodType, z.ZodType>> {
  const api = new AuthApi(new Router({ prefix: AUTH_BASE_PATH }), deps);
  declareRoutes(api);
  return api.routes;
}

function declareRoutes(api: AuthApi): void {
  emailPasswordRoutes(api);
  sessionRoutes(api);
  userRoutes(api);
  verificationRoutes(api);
  passwordResetRoutes(api);
  accountRoutes(api);
  apiKeyRoutes(api);
  jwtRoutes(api);
  socialRoutes(api);
  socialAccountRoutes(api);
  cliExchangeRoutes(api);
  organizationRoutes(api);
  pageRoutes(api);
}
