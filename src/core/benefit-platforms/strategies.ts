import type { Strategies } from '../benefit-grants/strategies.js';
import type { BenefitPlatformsConfig } from '../config/index.js';
import type { CustomerAccountService } from '../customer-accounts/service.js';
import { downloadablesStrategy } from '../downloadables/strategy.js';
import { discordStrategy } from './discord.js';
import { githubRepositoryStrategy } from './github.js';

/**
 * downloadables always; github_repository once Till can both call GitHub (token or App) and connect customers'
 * accounts (OAuth client); discord likewise with the bot token and the OAuth client.
 */
export function platformStrategies(config: BenefitPlatformsConfig, accounts: CustomerAccountService): Strategies {
  return {
    downloadables: downloadablesStrategy,
    ...(config.github.credentials && config.github.oauth
      ? { github_repository: githubRepositoryStrategy({ config: config.github, accounts }) }
      : {}),
    ...(config.discord.botToken && config.discord.oauth
      ? { discord: discordStrategy({ config: config.discord, accounts }) }
      : {}),
  };
}
