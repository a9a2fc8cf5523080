import type { BenefitPlatformsConfig } from '../config/index.js';
import type { ResolvedProvider } from '../oauth/client.js';
import { PROVIDER_CATALOGUE } from '../oauth/providers.js';
import type { AccountPlatform } from './repository.js';

/**
 * The social sign-in catalogue's GitHub and Discord, pointed at the configured OAuth endpoints and with the scopes a
 * benefit needs: GitHub's login for the collaborator invitation, Discord's `guilds.join` to add the member.
 */
export function platformProvider(config: BenefitPlatformsConfig, platform: AccountPlatform): ResolvedProvider | null {
  const settings = config[platform];
  if (!settings.oauth) return null;
  const base = PROVIDER_CATALOGUE.get(platform)!;
  return {
    ...base,
    authorizationEndpoint: settings.oauth.authorizeUrl,
    tokenEndpoint: settings.oauth.tokenUrl,
    userinfoEndpoint: platform === 'github' ? `${settings.apiUrl}/user` : `${settings.apiUrl}/users/@me`,
    emailsEndpoint: undefined,
    scopes: platform === 'github' ? ['read:user'] : ['identify', 'guilds.join'],
    clientId: settings.oauth.clientId,
    clientSecret: settings.oauth.clientSecret,
  };
}
