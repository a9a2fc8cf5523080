import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { request } from 'undici';
import type { OAuthConfig, OAuthProviderSettings } from '../config/index.js';
import { mapOidcClaims, PROVIDER_CATALOGUE, type ProviderDefinition, type ProviderProfile } from './providers.js';

/** A configured provider: the catalogue's (or discovery's) definition plus the operator's client credentials. */
export interface ResolvedProvider extends ProviderDefinition {
  clientId: string;
  clientSecret: string;
}

export interface TokenSet {
  accessToken: string | null;
  refreshToken: string | null;
  idToken: string | null;
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  scopes: string[];
}

/** A failure of the provider conversation, named by the redirect error code Better Auth uses for it. */
export class OAuthFlowError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'OAuthFlowError';
  }
}

const TIMEOUTS = { headersTimeout: 10_000, bodyTimeout: 10_000 };

async function fetchJson(
  url: string,
  options: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; data: any }> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: { accept: 'application/json', ...options.headers },
    body: options.body,
    ...TIMEOUTS,
  });
  const text = await response.body.text();
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    // GitHub answers form-encoded token responses to clients that forget Accept; take them too.
    data = Object.fromEntries(new URLSearchParams(text));
  }
  return { status: response.statusCode, data };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

async function discover(settings: OAuthProviderSettings): Promise<ProviderDefinition> {
  let discovered: Record<string, any> = {};
  if (settings.issuer) {
    const { status, data } = await fetchJson(`${settings.issuer}/.well-known/openid-configuration`);
    if (status !== 200 || !data || typeof data !== 'object')
      throw new Error(`OIDC discovery failed for ${settings.id} (HTTP ${status})`);
    discovered = data;
  }
  const jwksUri = settings.jwksUri ?? discovered.jwks_uri;
  const issuer = discovered.issuer ?? settings.issuer;
  const authorizationEndpoint = settings.authorizationEndpoint ?? discovered.authorization_endpoint;
  const tokenEndpoint = settings.tokenEndpoint ?? discovered.token_endpoint;
  if (!authorizationEndpoint || !tokenEndpoint)
    throw new Error(`provider ${settings.id} has no authorization or token endpoint`);
  return {
    id: settings.id,
    authorizationEndpoint,
    tokenEndpoint,
    userinfoEndpoint: settings.userinfoEndpoint ?? discovered.userinfo_endpoint,
    scopes: settings.issuer ? ['openid', 'email', 'profile'] : [],
    pkce: true,
    tokenAuth: settings.tokenAuth ?? 'post',
    ...(jwksUri && issuer ? { idToken: { issuer, jwksUri } } : {}),
    mapProfile: mapOidcClaims,
  };
}

export type ProviderRegistry = ReturnType<typeof createProviderRegistry>;

export function createProviderRegistry(config: OAuthConfig, clock: { now(): Date }) {
  const settings = new Map(config.providers.map((provider) => [provider.id, provider]));
  const resolved = new Map<string, Promise<ResolvedProvider>>();
  const jwks = new Map<string, JWTVerifyGetKey>();

  async function resolve(s: OAuthProviderSettings): Promise<ResolvedProvider> {
    const definition = PROVIDER_CATALOGUE.get(s.id) ?? (await discover(s));
    return { ...definition, scopes: s.scopes ?? definition.scopes, clientId: s.clientId, clientSecret: s.clientSecret };
  }

  function clientAuth(provider: ResolvedProvider, form: URLSearchParams): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (provider.tokenAuth === 'basic') {
      const pair = `${encodeURIComponent(provider.clientId)}:${encodeURIComponent(provider.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set(provider.clientIdParam ?? 'client_id', provider.clientId);
      if (provider.clientSecret) form.set('client_secret', provider.clientSecret);
    }
    return headers;
  }

  function tokenSet(data: Record<string, any>, previous?: TokenSet): TokenSet {
    const now = clock.now().getTime();
    const seconds = (value: unknown) =>
      typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value)) ? Number(value) : null;
    const expiresIn = seconds(data.expires_in);
    const refreshExpiresIn = seconds(data.refresh_token_expires_in);
    const scope = typeof data.scope === 'string' ? data.scope : Array.isArray(data.scope) ? data.scope.join(' ') : null;
    return {
      accessToken: typeof data.access_token === 'string' ? data.access_token : null,
      refreshToken: typeof data.refresh_token === 'string' ? data.refresh_token : (previous?.refreshToken ?? null),
      idToken: typeof data.id_token === 'string' ? data.id_token : (previous?.idToken ?? null),
      accessTokenExpiresAt: expiresIn !== null ? new Date(now + expiresIn * 1000) : null,
      refreshTokenExpiresAt:
        refreshExpiresIn !== null ? new Date(now + refreshExpiresIn * 1000) : (previous?.refreshTokenExpiresAt ?? null),
      scopes: scope !== null ? scope.split(/[\s,]+/).filter(Boolean) : (previous?.scopes ?? []),
    };
  }

  return {
    has: (id: string) => settings.has(id),
    /** The provider, or null when it is not configured. Discovery runs once; a failed one is retried next time. */
    async get(id: string): Promise<ResolvedProvider | null> {
      const s = settings.get(id);
      if (!s) return null;
      let pending = resolved.get(id);
      if (!pending) {
        pending = resolve(s);
        resolved.set(id, pending);
        pending.catch(() => resolved.delete(id));
      }
      return pending;
    },

    authorizationUrl(
      provider: ResolvedProvider,
      input: { state: string; codeVerifier: string; redirectUri: string; scopes?: string[]; loginHint?: string },
    ): string {
      const url = new URL(provider.authorizationEndpoint);
      const scopes = [...new Set([...provider.scopes, ...(input.scopes ?? [])])];
      url.searchParams.set('response_type', 'code');
      url.searchParams.set(provider.clientIdParam ?? 'client_id', provider.clientId);
      url.searchParams.set('redirect_uri', input.redirectUri);
      url.searchParams.set('state', input.state);
      if (scopes.length > 0) url.searchParams.set('scope', scopes.join(provider.scopeSeparator ?? ' '));
      if (provider.pkce) {
        url.searchParams.set('code_challenge', pkceChallenge(input.codeVerifier));
        url.searchParams.set('code_challenge_method', 'S256');
      }
      if (input.loginHint) url.searchParams.set('login_hint', input.loginHint);
      for (const [name, value] of Object.entries(provider.authorizationParams ?? {})) url.searchParams.set(name, value);
      return url.href;
    },

    async exchangeCode(
      provider: ResolvedProvider,
      input: { code: string; codeVerifier: string; redirectUri: string; deviceId?: string },
    ): Promise<TokenSet> {
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
      });
      if (provider.pkce) form.set('code_verifier', input.codeVerifier);
      if (input.deviceId) form.set('device_id', input.deviceId);
      const headers = clientAuth(provider, form);
      const { status, data } = await fetchJson(provider.tokenEndpoint, {
        method: 'POST',
        headers,
        body: form.toString(),
      });
      if (status >= 400 || !data || typeof data.access_token !== 'string') throw new OAuthFlowError('invalid_code');
      return tokenSet(data);
    },

    async refresh(provider: ResolvedProvider, previous: TokenSet & { refreshToken: string }): Promise<TokenSet> {
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: previous.refreshToken });
      const headers = clientAuth(provider, form);
      const { status, data } = await fetchJson(provider.tokenEndpoint, {
        method: 'POST',
        headers,
        body: form.toString(),
      });
      if (status >= 400 || !data || typeof data.access_token !== 'string') throw new OAuthFlowError('refresh_failed');
      return tokenSet(data, previous);
    },

    /** The raw profile document and its mapping, from the userinfo endpoint or the id_token's claims. */
    async fetchProfile(
      provider: ResolvedProvider,
      tokens: TokenSet,
    ): Promise<{ raw: Record<string, any>; profile: ProviderProfile }> {
      let raw: Record<string, any> | null = null;
      try {
        if (provider.userinfoEndpoint && tokens.accessToken) {
          const kind = provider.userinfoRequest ?? 'get';
          const response =
            kind === 'post-form'
              ? await fetchJson(provider.userinfoEndpoint, {
                  method: 'POST',
                  headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  body: new URLSearchParams({
                    access_token: tokens.accessToken,
                    client_id: provider.clientId,
                  }).toString(),
                })
              : await fetchJson(provider.userinfoEndpoint, {
                  method: kind === 'post' ? 'POST' : 'GET',
                  headers: { authorization: `Bearer ${tokens.accessToken}` },
                });
          if (response.status === 200 && response.data && typeof response.data === 'object') raw = response.data;
          if (raw && provider.emailsEndpoint) {
            const emails = await fetchJson(provider.emailsEndpoint, {
              headers: { authorization: `Bearer ${tokens.accessToken}` },
            });
            if (emails.status === 200 && Array.isArray(emails.data)) raw = { ...raw, emails: emails.data };
          }
        } else if (tokens.idToken) {
          // Straight from the token endpoint over TLS, so its claims need no signature check (OIDC Core 3.1.3.7).
          raw = decodeJwt(tokens.idToken) as Record<string, any>;
        }
      } catch {
        raw = null;
      }
      const profile = raw ? provider.mapProfile(raw) : null;
      if (!raw || !profile || !profile.id) throw new OAuthFlowError('unable_to_get_user_info');
      return { raw, profile };
    },

    /** Verifies an ID token the client obtained itself: signature from the provider's JWKS, issuer, audience, nonce. */
    async verifyIdToken(provider: ResolvedProvider, token: string, nonce?: string): Promise<JWTPayload | null> {
      if (!provider.idToken) return null;
      let keys = jwks.get(provider.id);
      if (!keys) {
        keys = createRemoteJWKSet(new URL(provider.idToken.jwksUri));
        jwks.set(provider.id, keys);
      }
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: provider.idToken.issuer,
          audience: provider.clientId,
          currentDate: clock.now(),
        });
        if (nonce !== undefined && payload.nonce !== nonce) return null;
        return payload;
      } catch {
        return null;
      }
    },
  };
}
