import type { Context } from 'koa';

/** A 302 with an empty body, as Better Auth's redirecting routes answer. */
export function redirect(ctx: Context, location: string): void {
  // Body first: Koa turns a null body into 204 unless the status is set after it.
  ctx.body = null;
  ctx.status = 302;
  ctx.set('Location', location);
}

/**
 * Adds query parameters to an absolute or root-relative URL, keeping what its query already holds and where it
 * is relative (Better Auth's appendQueryParams, used by /verify-email).
 */
export function appendQuery(url: string, params: Record<string, string>): string {
  const relative = url.startsWith('/');
  const parsed = new URL(url, 'https://till.invalid');
  const query = new URLSearchParams(params).toString();
  parsed.search = parsed.search ? `${parsed.search}&${query}` : query;
  // Leading slashes collapsed: `//host` would be read as another host.
  return relative ? parsed.href.slice(parsed.origin.length).replace(/^[/\\]+/, '/') : parsed.href;
}

/** Resolves a callback against the base URL and sets parameters on it (Better Auth's reset-password redirect). */
export function absoluteWith(url: string, base: string, params: Record<string, string>): string {
  const parsed = new URL(url, base);
  for (const [name, value] of Object.entries(params)) parsed.searchParams.set(name, value);
  return parsed.href;
}

/**
 * The `?error=` a failed mail link carries to its callback: the spec's lower-case names (token_expired,
 * invalid_token, user_not_found, unauthorized for a link opened in another user's session), where Better Auth 1.7.25
 * puts its upper-case codes. Apps read this value, Better Auth's client does not.
 */
export function redirectErrorCode(code: string): string {
  return code === 'INVALID_USER' ? 'unauthorized' : code.toLowerCase();
}
