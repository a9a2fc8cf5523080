import { createAuthClient } from 'better-auth/client';
import { expect } from 'vitest';
import { useTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniqueEmail } from '../helpers/http.js';

// Better Auth's own client (reference §10) as a black-box conformance client for /api/auth. The version is pinned:
// the client's request shapes change between minors, and the better-auth-client*.test.ts files speak for 1.7.25
// exactly.
export const PINNED_VERSION = '1.7.25';
export const SESSION_COOKIE = 'better-auth.session_token';
export const PASSWORD = 'correct horse battery';
/** The test daemon's clock starts here; tests that look at timestamps set it back to it. */
export const started = new Date('2026-11-21T12:00:00.000Z');

/** A cookie jar as a browser keeps one: Set-Cookie is stored, Max-Age=0 deletes, Cookie is sent back. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  absorb(headers: Headers): void {
    for (const cookie of headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The session token inside the signed session cookie (`token.base64(HMAC)`, URL-encoded). */
  sessionToken(): string | undefined {
    const raw = this.cookies.get(SESSION_COOKIE);
    if (raw === undefined) return undefined;
    const decoded = decodeURIComponent(raw);
    return decoded.slice(0, decoded.lastIndexOf('.'));
  }
}

/** A Better Auth client that keeps cookies in `jar` and sends `origin` (the daemon's own by default; null: none). */
export function makeClient(baseUrl: string, options: { jar?: CookieJar; origin?: string | null } = {}) {
  const jar = options.jar ?? new CookieJar();
  const origin = options.origin === undefined ? baseUrl : options.origin;
  const client = createAuthClient({
    baseURL: baseUrl,
    fetchOptions: {
      customFetchImpl: async (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (jar.cookies.size > 0) headers.set('cookie', jar.header());
        if (origin !== null) headers.set('origin', origin);
        const response = await fetch(input, { ...init, headers });
        jar.absorb(response.headers);
        return response;
      },
    },
  });
  return { client, jar };
}

export type Client = ReturnType<typeof makeClient>;

export async function sessionOf(c: Client) {
  const { data, error } = await c.client.getSession();
  expect(error).toBeNull();
  return data;
}

export interface ClientDaemon {
  /** The file's daemon (inside tests only). */
  daemon(): TestDaemon;
  newClient(origin?: string | null): Client;
  /** A new user, signed up (and so signed in) in a fresh jar. */
  signedUp(name?: string): Promise<Client & { email: string; userId: string; token: string }>;
  /** A fresh jar signed in as `email`. */
  signedIn(email: string, password?: string): Promise<Client & { token: string }>;
}

/** One default test daemon for the test file, and clients bound to it. */
export function useClientDaemon(): ClientDaemon {
  const daemon = useTestDaemon();
  const newClient = (origin?: string | null): Client => makeClient(daemon().url, { origin });
  return {
    daemon,
    newClient,
    async signedUp(name = 'Ada') {
      const c = newClient();
      const email = uniqueEmail('client');
      const { data, error } = await c.client.signUp.email({ name, email, password: PASSWORD });
      expect(error).toBeNull();
      return { ...c, email, userId: data!.user.id, token: data!.token! };
    },
    async signedIn(email, password = PASSWORD) {
      const c = newClient();
      const { data, error } = await c.client.signIn.email({ email, password });
      expect(error).toBeNull();
      return { ...c, token: data!.token };
    },
  };
}
