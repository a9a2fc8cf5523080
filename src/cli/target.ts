import { configPath, DEFAULT_PROFILE, readConfig, type CliConfig } from './config.js';
import { UsageError } from './errors.js';

export const DEFAULT_URL = 'http://127.0.0.1:4100';

/** Options defined on the root command, visible to every subcommand through optsWithGlobals(). */
export interface GlobalOptions {
  url?: string;
  profile?: string;
}

/** Which daemon a command talks to, as whom, and where that came from. */
export interface Target {
  url: string;
  profile: string;
  token: string | null;
  tokenSource: 'env' | 'profile' | null;
  configFile: string;
  config: CliConfig;
}

export function normalizeUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source} is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${source} must be an http(s) URL: ${raw}`);
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * Precedence is flags > environment > config file, for the URL and the profile alike. TILL_TOKEN always wins over
 * a stored token; a stored token is only sent to the URL it was issued by, so `--url` pointed at another server
 * does not hand that server a session for this one.
 */
export function resolveTarget(globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Target {
  const configFile = configPath(env);
  const config = readConfig(configFile);
  const profile = globals.profile ?? env.TILL_PROFILE ?? config.currentProfile ?? DEFAULT_PROFILE;
  const stored = config.profiles[profile] ?? {};
  const storedUrl = stored.url
    ? normalizeUrl(stored.url, `the URL of profile "${profile}" in ${configFile}`)
    : DEFAULT_URL;
  const url = globals.url
    ? normalizeUrl(globals.url, '--url')
    : env.TILL_URL
      ? normalizeUrl(env.TILL_URL, 'TILL_URL')
      : storedUrl;
  if (env.TILL_TOKEN) return { url, profile, token: env.TILL_TOKEN, tokenSource: 'env', configFile, config };
  const token = stored.token && storedUrl === url ? stored.token : null;
  return { url, profile, token, tokenSource: token ? 'profile' : null, configFile, config };
}
