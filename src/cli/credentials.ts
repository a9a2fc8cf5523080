import { readConfig, updateConfig, writeConfig } from './config.js';
import { info } from './output.js';
import type { Target } from './target.js';

/**
 * Remembers a new session in the profile, together with the URL that issued it (a token is only ever sent back
 * there). The first profile anyone signs into becomes the current one.
 */
export function storeSession(target: Target, session: { token: string; email: string }): void {
  updateConfig((config) => {
    config.profiles[target.profile] = {
      ...config.profiles[target.profile],
      url: target.url,
      token: session.token,
      email: session.email,
    };
    config.currentProfile ??= target.profile;
  }, target.configFile);
  if (target.tokenSource === 'env') info('note: TILL_TOKEN is set and still takes precedence over the stored session');
}

/** Forgets the profile's token (keeping its URL and e-mail, which are handy for the next `till login`). */
export function forgetSession(target: Target): boolean {
  const config = readConfig(target.configFile);
  const profile = config.profiles[target.profile];
  if (!profile?.token) return false;
  delete profile.token;
  writeConfig(config, target.configFile);
  return true;
}
