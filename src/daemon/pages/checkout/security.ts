import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/**
 * Response headers and request checks for the hosted checkout pages. The page handles a buyer's card entry, so it
 * loads nothing from anywhere, runs only its own nonce'd style and script, can be framed only by the merchant's
 * declared embed origin, and never leaks its URL (which carries the client secret) in a Referer.
 */

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** An origin we put in a header: scheme, host and port only, so nothing in it can end a CSP directive. */
function safeOrigin(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const origin = new URL(value).origin;
    return /^https?:\/\/[A-Za-z0-9.\-[\]:]+$/.test(origin) ? origin : null;
  } catch {
    return null;
  }
}

export interface PageSecurity {
  nonce: string;
  /** The daemon's public origin (from TILL_BASE_URL). */
  ownOrigin: string;
  /** Where a successful payment sends the buyer: form-action must allow it, since it governs the redirect too. */
  successUrl?: string | null;
  /** The merchant's site that may frame the checkout (Polar's embedded checkout). */
  embedOrigin?: string | null;
}

export function setPageHeaders(ctx: Context, security: PageSecurity): void {
  const formTargets = new Set(["'self'", security.ownOrigin]);
  const success = safeOrigin(security.successUrl);
  if (success) formTargets.add(success);
  const embed = safeOrigin(security.embedOrigin);
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${security.nonce}'`,
    `script-src 'nonce-${security.nonce}'`,
    "img-src 'self' data:",
    // The hydrated checkout saves price changes through its own public API as the buyer types.
    "connect-src 'self'",
    `form-action ${[...formTargets].join(' ')}`,
    `frame-ancestors ${embed ?? "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
  ctx.set('Content-Security-Policy', csp);
  // X-Frame-Options cannot name one origin (ALLOW-FROM is dead); with an embed origin CSP alone decides.
  if (embed) ctx.remove('X-Frame-Options');
  else ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
}

/**
 * CSRF for the form POST. The client secret in the path is the credential; on top of it a browser must show the
 * POST comes from this daemon's own pages. With `Referrer-Policy: no-referrer` browsers send `Origin: null` even for
 * a same-origin form POST (Fetch's "serialize a request origin"), so a null origin is accepted only when the browser
 * also attests `Sec-Fetch-Site: same-origin`. Clients that send neither header (curl, scripts) hold the secret and
 * are let through, as the JSON API lets them through.
 */
export function postOriginAllowed(ctx: Context, ownOrigin: string): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = ctx.get('origin');
  if (!origin) return true;
  if (origin === 'null') return site === 'same-origin';
  return origin === ownOrigin;
}
