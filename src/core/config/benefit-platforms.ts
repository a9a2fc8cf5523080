import { createPrivateKey } from 'node:crypto';
import { ConfigError } from './errors.js';

/** How Till reaches GitHub for the github_repository benefit: a token, or a GitHub App's installation tokens. */
export type GitHubCredentials = { kind: 'token'; token: string } | { kind: 'app'; appId: string; privateKey: string };

/** An OAuth client the customer portal connects customers' accounts through (not a sign-in provider). */
export interface PlatformOAuthClient {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
}

export interface GitHubPlatformConfig {
  apiUrl: string;
  credentials: GitHubCredentials | null;
  oauth: PlatformOAuthClient | null;
}

export interface DiscordPlatformConfig {
  apiUrl: string;
  botToken: string | null;
  oauth: PlatformOAuthClient | null;
}

/** The github_repository and discord benefits' outside systems (README, "GitHub and Discord benefits"). */
export interface BenefitPlatformsConfig {
  github: GitHubPlatformConfig;
  discord: DiscordPlatformConfig;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${value}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(`${name} must be an http or https URL: ${value}`);
  return value.replace(/\/+$/, '');
}

function oauthClient(
  env: NodeJS.ProcessEnv,
  prefix: 'GITHUB' | 'DISCORD',
  defaults: { authorize: string; token: string },
): PlatformOAuthClient | null {
  const clientId = env[`TILL_${prefix}_CLIENT_ID`];
  const clientSecret = env[`TILL_${prefix}_CLIENT_SECRET`];
  const authorizeUrl = url(env, `TILL_${prefix}_OAUTH_AUTHORIZE_URL`, defaults.authorize);
  const tokenUrl = url(env, `TILL_${prefix}_OAUTH_TOKEN_URL`, defaults.token);
  if (!clientId && !clientSecret) return null;
  if (!clientId || !clientSecret)
    throw new ConfigError(`TILL_${prefix}_CLIENT_ID and TILL_${prefix}_CLIENT_SECRET must be set together`);
  return { clientId, clientSecret, authorizeUrl, tokenUrl };
}

function githubCredentials(env: NodeJS.ProcessEnv): GitHubCredentials | null {
  const token = env.TILL_GITHUB_TOKEN;
  const appId = env.TILL_GITHUB_APP_ID;
  // A PEM in one environment line usually arrives with its newlines escaped.
  const privateKey = env.TILL_GITHUB_APP_PRIVATE_KEY?.replace(/\\n/g, '\n');
  if (token && (appId || privateKey))
    throw new ConfigError(
      'Set either TILL_GITHUB_TOKEN or TILL_GITHUB_APP_ID with TILL_GITHUB_APP_PRIVATE_KEY, not both',
    );
  if (token) return { kind: 'token', token };
  if (!appId && !privateKey) return null;
  if (!appId || !privateKey)
    throw new ConfigError('TILL_GITHUB_APP_ID and TILL_GITHUB_APP_PRIVATE_KEY must be set together');
  if (!/^\d+$/.test(appId)) throw new ConfigError('TILL_GITHUB_APP_ID must be the numeric id of the GitHub App');
  try {
    const key = createPrivateKey(privateKey);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw new ConfigError('TILL_GITHUB_APP_PRIVATE_KEY must be the GitHub App private key (RSA, PEM)');
  }
  return { kind: 'app', appId, privateKey };
}

export function loadBenefitPlatformsConfig(env: NodeJS.ProcessEnv): BenefitPlatformsConfig {
  return {
    github: {
      apiUrl: url(env, 'TILL_GITHUB_API_URL', 'https://api.github.com'),
      credentials: githubCredentials(env),
      oauth: oauthClient(env, 'GITHUB', {
        authorize: 'https://github.com/login/oauth/authorize',
        token: 'https://github.com/login/oauth/access_token',
      }),
    },
    discord: {
      apiUrl: url(env, 'TILL_DISCORD_API_URL', 'https://discord.com/api/v10'),
      botToken: env.TILL_DISCORD_BOT_TOKEN || null,
      oauth: oauthClient(env, 'DISCORD', {
        authorize: 'https://discord.com/oauth2/authorize',
        token: 'https://discord.com/api/oauth2/token',
      }),
    },
  };
}
