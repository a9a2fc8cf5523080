/**
 * Trusted origins: the base URL's origin plus TILL_TRUSTED_ORIGINS. Entries may hold wildcards (`*` any run of
 * characters within a host, `?` one character) and custom schemes (`myapp://`).
 */
export interface TrustedOrigins {
  isTrustedOrigin(origin: string): boolean;
  /** A callback or redirect target: a safe relative path, or an absolute URL on a trusted origin. */
  isAllowedRedirect(url: string): boolean;
}

// Relative paths that cannot be turned into another host: no `//`, no backslashes, no encoded slashes.
const SAFE_RELATIVE = /^\/(?!\/|\\|%2f|%5c)[\w\-.+/@]*(\?[\w\-.+/=&%@]*)?$/i;

const RELATIVE_BASE = 'https://till.invalid';

/**
 * A root-relative URL as a browser would resolve it: dot segments resolved (`/a/..//x` is `//x`), backslashes read
 * as slashes. Null if it resolves off this host.
 */
export function resolveRelative(url: string): string | null {
  try {
    const parsed = new URL(url, RELATIVE_BASE);
    return parsed.origin === RELATIVE_BASE ? parsed.href.slice(RELATIVE_BASE.length) : null;
  } catch {
    return null;
  }
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    // Custom schemes (app deep links) have an opaque origin; compare scheme and host instead.
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return null;
  }
}

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${escaped}$`, 'i');
}

export function createTrustedOrigins(baseUrl: string, extra: string[]): TrustedOrigins {
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  // `myapp://` alone trusts every deep link of that scheme.
  const schemes = new Set<string>();
  for (const entry of [new URL(baseUrl).origin, ...extra]) {
    const trimmed = entry.trim().replace(/\/+$/, '');
    if (!trimmed) continue;
    const bareScheme = /^([a-z][a-z0-9+.-]*):(\/\/)?$/i.exec(trimmed);
    if (bareScheme && !['http', 'https'].includes(bareScheme[1]!.toLowerCase())) {
      schemes.add(`${bareScheme[1]!.toLowerCase()}:`);
      continue;
    }
    if (/[*?]/.test(trimmed)) patterns.push(patternToRegExp(trimmed));
    else exact.add((originOf(trimmed) ?? trimmed).toLowerCase());
  }

  const isTrustedOrigin = (origin: string): boolean => {
    const normalized = (originOf(origin) ?? origin).toLowerCase();
    if (exact.has(normalized)) return true;
    const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(normalized)?.[1];
    if (scheme && schemes.has(scheme)) return true;
    return patterns.some((pattern) => pattern.test(normalized));
  };

  return {
    isTrustedOrigin,
    isAllowedRedirect(url) {
      // Judged as written and as resolved: `/.//evil.com` is harmless as written but `//evil.com` once resolved.
      if (url.startsWith('/')) {
        const resolved = resolveRelative(url);
        return SAFE_RELATIVE.test(url) && resolved !== null && SAFE_RELATIVE.test(resolved);
      }
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return false;
      const origin = originOf(url);
      if (!origin || /^(javascript|data|vbscript|file):/i.test(url)) return false;
      return isTrustedOrigin(origin);
    },
  };
}
