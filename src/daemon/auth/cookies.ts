import type { Context } from 'koa';
import type { SessionWire, UserWire } from '../../core/auth/schemas.js';
import type { TillConfig } from '../../core/config/index.js';
import { hmacSha256Base64, hmacSha256Base64Url, safeEqual } from '../../core/kernel/crypto.js';

const MAX_COOKIE_AGE = 34_560_000; // 400 days, the browsers' cap
export const COOKIE_CACHE_LIMIT = 4093;
const STATE_COOKIE_MAX_AGE = 300;

export interface CookieNames {
  sessionToken: string;
  sessionData: string;
  dontRemember: string;
  state: string;
}

/**
 * The session cookies, byte-compatible with Better Auth's: `<prefix>.session_token` holds
 * `token.base64(HMAC-SHA256(secret, token))`, so Better Auth's cookie helpers and its client keep working.
 */
export function createAuthCookies(config: Pick<TillConfig, 'baseUrl' | 'cookiePrefix' | 'secret' | 'session'>) {
  const secure = config.baseUrl.startsWith('https://');
  const prefix = secure ? '__Secure-' : '';
  const names: CookieNames = {
    sessionToken: `${prefix}${config.cookiePrefix}.session_token`,
    sessionData: `${prefix}${config.cookiePrefix}.session_data`,
    dontRemember: `${prefix}${config.cookiePrefix}.dont_remember`,
    state: `${prefix}${config.cookiePrefix}.state`,
  };

  function serialize(name: string, value: string, maxAge: number | null): string {
    const parts = [`${name}=${value}`];
    if (maxAge !== null) parts.push(`Max-Age=${Math.min(maxAge, MAX_COOKIE_AGE)}`);
    parts.push('Path=/', 'HttpOnly');
    if (secure) parts.push('Secure');
    parts.push('SameSite=Lax');
    return parts.join('; ');
  }

  function sign(value: string): string {
    return encodeURIComponent(`${value}.${hmacSha256Base64(config.secret, value)}`);
  }

  // A browser presents the same signed value on every request; remembering the values that verified spares an HMAC
  // per request (a tenth of get-session's CPU). Only verified values are kept, so a forged one is checked each time.
  const verified = new Map<string, string>();

  /** Returns the unsigned value of a signed cookie value, or null when the signature does not hold. */
  function unsign(raw: string): string | null {
    const known = verified.get(raw);
    if (known !== undefined) return known;
    const value = verifySignature(raw);
    if (value !== null) {
      if (verified.size >= 10_000) verified.clear();
      verified.set(raw, value);
    }
    return value;
  }

  function verifySignature(raw: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return null;
    }
    const dot = decoded.lastIndexOf('.');
    if (dot <= 0) return null;
    const value = decoded.slice(0, dot);
    const signature = decoded.slice(dot + 1);
    if (signature.length !== 44 || !signature.endsWith('=')) return null;
    return safeEqual(signature, hmacSha256Base64(config.secret, value)) ? value : null;
  }

  function parse(header: string): Map<string, string> {
    const cookies = new Map<string, string>();
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      const name = part.slice(0, eq).trim();
      if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
    }
    return cookies;
  }

  function append(ctx: Context, cookie: string): void {
    ctx.append('Set-Cookie', cookie);
  }

  function encodeSessionData(session: SessionWire, user: UserWire, now: number): string {
    const sessionData = { session, user, updatedAt: now, version: '1' };
    const expiresAt = now + config.session.cookieCache.maxAge * 1000;
    const signature = hmacSha256Base64Url(config.secret, JSON.stringify({ ...sessionData, expiresAt }));
    return Buffer.from(JSON.stringify({ session: sessionData, expiresAt, signature })).toString('base64url');
  }

  return {
    names,
    sign,
    /** The session token from the request's cookies, if one is present and correctly signed. */
    readSessionToken(ctx: Context): { present: boolean; token: string | null; dontRemember: boolean } {
      const header = ctx.get('cookie');
      if (!header) return { present: false, token: null, dontRemember: false };
      const cookies = parse(header);
      const raw = cookies.get(names.sessionToken);
      if (raw === undefined) return { present: false, token: null, dontRemember: false };
      const dontRememberRaw = cookies.get(names.dontRemember);
      return {
        present: true,
        token: unsign(raw),
        dontRemember: dontRememberRaw !== undefined && unsign(dontRememberRaw) === 'true',
      };
    },
    /** Cached session and user from the session_data cookie, when present, signed and unexpired. */
    readSessionData(ctx: Context, now: number): { session: SessionWire; user: UserWire } | null {
      const raw = parse(ctx.get('cookie')).get(names.sessionData);
      if (!raw) return null;
      try {
        const decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as {
          session: { session: SessionWire; user: UserWire; updatedAt: number; version: string };
          expiresAt: number;
          signature: string;
        };
        const expected = hmacSha256Base64Url(
          config.secret,
          JSON.stringify({ ...decoded.session, expiresAt: decoded.expiresAt }),
        );
        if (typeof decoded.signature !== 'string' || !safeEqual(decoded.signature, expected)) return null;
        if (decoded.expiresAt <= now) return null;
        return { session: decoded.session.session, user: decoded.session.user };
      } catch {
        return null;
      }
    },
    /** The cookie-cache value, or null when it would not fit in a cookie. */
    sessionDataValue(session: SessionWire, user: UserWire, now: number): string | null {
      const value = encodeSessionData(session, user, now);
      return value.length > COOKIE_CACHE_LIMIT ? null : value;
    },
    setSession(
      ctx: Context,
      token: string,
      options: { rememberMe: boolean; cache?: { session: SessionWire; user: UserWire; now: number } },
    ): void {
      append(ctx, serialize(names.sessionToken, sign(token), options.rememberMe ? config.session.expiresIn : null));
      if (!options.rememberMe) append(ctx, serialize(names.dontRemember, sign('true'), null));
      if (options.cache && config.session.cookieCache.enabled) {
        const value = encodeSessionData(options.cache.session, options.cache.user, options.cache.now);
        if (value.length <= COOKIE_CACHE_LIMIT)
          append(ctx, serialize(names.sessionData, value, config.session.cookieCache.maxAge));
      }
      // Clients that cannot keep cookies (mobile apps, scripts) read the signed token here, as with Better Auth's bearer plugin.
      ctx.set('set-auth-token', sign(token));
      ctx.set('Access-Control-Expose-Headers', 'set-auth-token');
    },
    /** Binds an OAuth state to this browser; Max-Age 300 as Better Auth (the state row itself lives 10 minutes). */
    setState(ctx: Context, state: string): void {
      append(ctx, serialize(names.state, sign(state), STATE_COOKIE_MAX_AGE));
    },
    readState(ctx: Context): string | null {
      const raw = parse(ctx.get('cookie')).get(names.state);
      return raw === undefined ? null : unsign(raw);
    },
    clearState(ctx: Context): void {
      append(ctx, serialize(names.state, '', 0));
    },
    clear(ctx: Context): void {
      for (const name of [names.sessionToken, names.sessionData, names.dontRemember])
        append(ctx, serialize(name, '', 0));
    },
    unsign,
  };
}

export type AuthCookies = ReturnType<typeof createAuthCookies>;
