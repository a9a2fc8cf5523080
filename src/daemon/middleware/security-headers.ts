import type { Context, Next } from 'koa';

/**
 * Headers every answer carries: no MIME sniffing, no framing, no full URL in a Referer. Set before the route runs, so
 * the hosted checkout page can replace them (its CSP lets the merchant's embed origin frame it) and errors carry
 * them too.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    await next();
  };
}
