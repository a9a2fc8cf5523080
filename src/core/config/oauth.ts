import { ConfigError } from './errors.js';

/** One configured social provider: a catalogued one (by id) or a generic OAuth2/OIDC one (issuer or endpoints). */
export interface OAuthProviderSettings {
  id: string;
  clientId: string;
  clientSecret: string;
  /** Replaces the catalogue's default scopes when given. */
  scopes?: string[];
  /** Generic providers: OIDC discovery from `${issuer}/.well-known/openid-configuration`. */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  jwksUri?: string;
  /** How the client authenticates at the token endpoint; the catalogue knows the right one for its providers. */
  tokenAuth?: 'post' | 'basic';
}

export interface OAuthConfig {
  providers: OAuthProviderSettings[];
  /** Providers whose e-mail addresses are trusted enough to link to an existing user without a verified flag. */
  trustedProviders: string[];
  /** Refuses every social sign-up (existing users still sign in). */
  disableSignUp: boolean;
  /** Social sign-up only when the client asks for it (`requestSignUp: true`). */
  disableImplicitSignUp: boolean;
  /** Better Auth's `accountLinking.allowDifferentEmails`: link-social accepts an identity with another address. */
  allowDifferentEmails?: boolean;
  /** Better Auth's `accountLinking.allowUnlinkingAll`: unlink-account may remove a user's last account. */
  allowUnlinkingAll?: boolean;
}

export const CATALOGUED_PROVIDER_IDS = [
  'apple',
  'discord',
  'facebook',
  'github',
  'microsoft',
  'google',
  'huggingface',
  'spotify',
  'twitch',
  'twitter',
  'dropbox',
  'kick',
  'linkedin',
  'gitlab',
  'tiktok',
  'reddit',
  'roblox',
  'vk',
  'zoom',
] as const;

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function flag(value: string | undefined): boolean {
  return value !== undefined && ['1', 'on', 'true', 'yes'].includes(value.toLowerCase());
}

function checkUrl(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ConfigError(`${name} must be a URL string`);
  try {
    new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${value}`);
  }
  return value.replace(/\/+$/, '');
}

function parseGeneric(raw: string): OAuthProviderSettings[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('TILL_OAUTH_PROVIDERS must be a JSON array');
  }
  if (!Array.isArray(parsed)) throw new ConfigError('TILL_OAUTH_PROVIDERS must be a JSON array');
  return parsed.map((entry, index) => {
    const where = `TILL_OAUTH_PROVIDERS[${index}]`;
    if (!entry || typeof entry !== 'object') throw new ConfigError(`${where} must be an object`);
    const e = entry as Record<string, unknown>;
    if (typeof e.id !== 'string' || !ID.test(e.id))
      throw new ConfigError(`${where}.id must be lowercase letters, digits, - or _`);
    if (typeof e.clientId !== 'string' || !e.clientId) throw new ConfigError(`${where}.clientId is required`);
    if (e.scopes !== undefined && (!Array.isArray(e.scopes) || !e.scopes.every((s) => typeof s === 'string'))) {
      throw new ConfigError(`${where}.scopes must be an array of strings`);
    }
    return checkProvider(
      {
        id: e.id,
        clientId: e.clientId,
        clientSecret: typeof e.clientSecret === 'string' ? e.clientSecret : '',
        scopes: e.scopes as string[] | undefined,
        issuer: checkUrl(`${where}.issuer`, e.issuer),
        authorizationEndpoint: checkUrl(`${where}.authorizationEndpoint`, e.authorizationEndpoint),
        tokenEndpoint: checkUrl(`${where}.tokenEndpoint`, e.tokenEndpoint),
        userinfoEndpoint: checkUrl(`${where}.userinfoEndpoint`, e.userinfoEndpoint),
        jwksUri: checkUrl(`${where}.jwksUri`, e.jwksUri),
        tokenAuth:
          e.tokenAuth === 'basic'
            ? 'basic'
            : e.tokenAuth === undefined || e.tokenAuth === 'post'
              ? undefined
              : invalidAuth(where),
      },
      where,
    );
  });
}

function invalidAuth(where: string): never {
  throw new ConfigError(`${where}.tokenAuth must be "post" or "basic"`);
}

/** A generic provider needs either an issuer to discover or both endpoints the code flow uses. */
export function checkProvider(provider: OAuthProviderSettings, where = provider.id): OAuthProviderSettings {
  const catalogued = (CATALOGUED_PROVIDER_IDS as readonly string[]).includes(provider.id);
  if (!catalogued && !provider.issuer && !(provider.authorizationEndpoint && provider.tokenEndpoint)) {
    throw new ConfigError(`${where} needs an issuer, or authorizationEndpoint and tokenEndpoint`);
  }
  return provider;
}

export function loadOAuthConfig(env: NodeJS.ProcessEnv): OAuthConfig {
  const providers: OAuthProviderSettings[] = [];
  for (const id of CATALOGUED_PROVIDER_IDS) {
    const key = `TILL_OAUTH_${id.toUpperCase()}`;
    const clientId = env[`${key}_CLIENT_ID`];
    if (!clientId) continue;
    const scopes = env[`${key}_SCOPES`];
    providers.push({
      id,
      clientId,
      clientSecret: env[`${key}_CLIENT_SECRET`] ?? '',
      ...(scopes ? { scopes: scopes.split(/[\s,]+/).filter(Boolean) } : {}),
    });
  }
  if (env.TILL_OAUTH_PROVIDERS) providers.push(...parseGeneric(env.TILL_OAUTH_PROVIDERS));
  const seen = new Set<string>();
  for (const provider of providers) {
    if (seen.has(provider.id)) throw new ConfigError(`OAuth provider "${provider.id}" is configured twice`);
    seen.add(provider.id);
  }
  return {
    providers,
    trustedProviders: (env.TILL_OAUTH_TRUSTED_PROVIDERS ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
    disableSignUp: flag(env.TILL_OAUTH_DISABLE_SIGNUP),
    disableImplicitSignUp: flag(env.TILL_OAUTH_DISABLE_IMPLICIT_SIGNUP),
    allowDifferentEmails: flag(env.TILL_OAUTH_ALLOW_DIFFERENT_EMAILS),
    allowUnlinkingAll: flag(env.TILL_OAUTH_ALLOW_UNLINKING_ALL),
  };
}

export const DEFAULT_OAUTH: OAuthConfig = {
  providers: [],
  trustedProviders: [],
  disableSignUp: false,
  disableImplicitSignUp: false,
  allowDifferentEmails: false,
  allowUnlinkingAll: false,
};
