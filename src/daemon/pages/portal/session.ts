import type { Context } from 'koa';
import type { CoreContext } from '../../../core/context.js';
import type { CustomerActor } from '../../../core/customers/sessions.js';

/**
 * The portal's sign-in: the merchant sends the customer to `/portal/<slug>?customer_session_token=…`; the portal
 * trades the token for an HttpOnly cookie scoped to that portal's path and redirects to the clean URL, so the token
 * leaves the address bar, the history and any link the customer copies. The cookie lives as long as the session.
 */

export const PORTAL_COOKIE = 'till_portal_session';
export const TOKEN_PARAM = 'customer_session_token';

export type PortalAccess =
  | { kind: 'ok'; actor: CustomerActor; token: string }
  /** No token at all: the customer opened the bare portal address. */
  | { kind: 'none' }
  | { kind: 'expired' }
  /** Unknown, malformed, or a customer of another organization than the portal's: never told apart. */
  | { kind: 'invalid' };

export function portalPath(slug: string): string {
  return `/portal/${encodeURIComponent(slug)}`;
}

export function cookieToken(ctx: Context): string | null {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === PORTAL_COOKIE) return decodeURIComponent(rest.join('=')) || null;
  }
  return null;
}

export async function resolveAccess(
  core: CoreContext,
  organizationId: string,
  token: string | null,
): Promise<PortalAccess> {
  if (!token) return { kind: 'none' };
  const found = await core.customerSessions.resolve(token);
  if (!found) return { kind: 'invalid' };
  if ('expired' in found) return { kind: 'expired' };
  // A session of another organization's customer opens only that organization's portal.
  if (found.actor.customer.organizationId !== organizationId) return { kind: 'invalid' };
  return { kind: 'ok', actor: found.actor, token };
}

export function setPortalCookie(ctx: Context, core: CoreContext, slug: string, token: string, expiresAt: Date): void {
  const secure = core.config.baseUrl.startsWith('https://');
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - core.clock.now().getTime()) / 1000));
  const parts = [
    `${PORTAL_COOKIE}=${encodeURIComponent(token)}`,
    `Max-Age=${maxAge}`,
    `Path=${portalPath(slug)}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearPortalCookie(ctx: Context, slug: string): void {
  ctx.append('Set-Cookie', `${PORTAL_COOKIE}=; Max-Age=0; Path=${portalPath(slug)}; HttpOnly; SameSite=Lax`);
}
