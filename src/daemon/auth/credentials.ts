import type { Context } from 'koa';
import { looksLikeApiKey } from '../../core/api-keys/keys.js';
import type { AuthCookies } from './cookies.js';

/**
 * The one place that reads credentials from request headers, shared by /api/auth's session authentication, the
 * /v1 authenticator, the customer portal and the operator API. Cookies are read by the session authentication
 * only (cookies.ts), since /v1 accepts none.
 */

/** The value of `Authorization: Bearer <value>`, trimmed; '' for a bare `Bearer`; null without a bearer header. */
export function bearerOf(ctx: Context): string | null {
  const authorization = ctx.get('authorization');
  return authorization.toLowerCase().startsWith('bearer ') ? authorization.slice(7).trim() : null;
}

/**
 * The API key a request presents, or '': `x-api-key` first, else a key-shaped bearer value (so that TILL_TOKEN may
 * hold a key), as with Better Auth's api-key plugin.
 */
export function apiKeyOf(ctx: Context, bearer: string | null): string {
  const header = ctx.get('x-api-key');
  if (header) return header;
  return bearer && looksLikeApiKey(bearer) ? bearer : '';
}

/**
 * A bearer value as a session token: the CLI holds either the raw token or the signed cookie value (with its
 * `.signature`, perhaps URL-encoded). Null when a signature is present and does not hold.
 */
export function bearerSessionToken(cookies: AuthCookies, bearer: string): string | null {
  return bearer.includes('.') || bearer.includes('%') ? cookies.unsign(bearer) : bearer;
}
