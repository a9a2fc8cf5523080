import type { Context } from 'koa';
import { authError, type AuthErrorCode } from '../../core/auth/errors.js';
import { DomainError } from '../../core/kernel/errors.js';
import { isLoopbackCallback } from '../../core/oauth/cli-handoff.js';
import type { TrustedOrigins } from '../auth/trusted-origins.js';

const REDIRECT_FIELDS: Array<[string, AuthErrorCode]> = [
  ['callbackURL', 'INVALID_CALLBACK_URL'],
  ['redirectTo', 'INVALID_REDIRECT_URL'],
  ['errorCallbackURL', 'INVALID_ERROR_CALLBACK_URL'],
  ['newUserCallbackURL', 'INVALID_NEW_USER_CALLBACK_URL'],
];

const FORM_LOGIN_PATHS = new Set(['/sign-in/email', '/sign-up/email']);

function requestOrigin(ctx: Context): string | null {
  const origin = ctx.get('origin');
  if (origin && origin !== 'null') return origin;
  if (origin === 'null') return null;
  const referer = ctx.get('referer');
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

function assertTrustedOrigin(ctx: Context, trusted: TrustedOrigins): void {
  const origin = requestOrigin(ctx);
  if (!origin) throw authError(403, 'MISSING_OR_NULL_ORIGIN');
  if (!trusted.isTrustedOrigin(origin)) throw authError(403, 'INVALID_ORIGIN');
}

/**
 * Better Auth's CSRF rules (reference §3), applied to a state-changing request under /api/auth:
 * - a request that carries cookies must come from a trusted Origin (or Referer);
 * - e-mail sign-in and sign-up from a browser (Sec-Fetch-* present) must too, and a cross-site navigation is
 *   refused outright, so a form on another site cannot sign a victim into an attacker's account;
 * - without cookies or browser headers (curl, the CLI with a bearer token) only a present Origin is checked.
 */
export function checkOrigin(ctx: Context, routePath: string, trusted: TrustedOrigins): void {
  if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return;
  if (ctx.get('cookie')) {
    assertTrustedOrigin(ctx, trusted);
    return;
  }
  if (!FORM_LOGIN_PATHS.has(routePath)) return;
  const site = ctx.get('sec-fetch-site');
  const mode = ctx.get('sec-fetch-mode');
  const dest = ctx.get('sec-fetch-dest');
  if (site || mode || dest) {
    if (site === 'cross-site' && mode === 'navigate') throw authError(403, 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED');
    assertTrustedOrigin(ctx, trusted);
    return;
  }
  if (ctx.get('origin') || ctx.get('referer')) assertTrustedOrigin(ctx, trusted);
}

/**
 * Callback and redirect targets in a body or query must be safe relative paths or on a trusted origin. The one
 * exception is a CLI sign-in (a body with cliChallenge, on /sign-in/social only): its callbackURL must instead be
 * the CLI's loopback, which is safe because what lands there is useless without the CLI's verifier.
 */
export function checkRedirectTargets(sources: unknown[], trusted: TrustedOrigins, cliSignIn = false): void {
  for (const [index, source] of sources.entries()) {
    if (!source || typeof source !== 'object') continue;
    const cli = cliSignIn && index === 0 && (source as Record<string, unknown>).cliChallenge !== undefined;
    if (cli) {
      const callback = (source as Record<string, unknown>).callbackURL;
      if (typeof callback !== 'string' || !isLoopbackCallback(callback)) {
        throw new DomainError(
          403,
          'INVALID_CALLBACK_URL',
          'Invalid callbackURL: a CLI sign-in needs an http://127.0.0.1:<port>/ or http://[::1]:<port>/ callbackURL',
        );
      }
    }
    for (const [field, code] of REDIRECT_FIELDS) {
      if (cli && field === 'callbackURL') continue;
      const value = (source as Record<string, unknown>)[field];
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') throw new DomainError(403, code, `Invalid ${field}: expected a string`);
      if (!trusted.isAllowedRedirect(value)) throw authError(403, code);
    }
  }
}
