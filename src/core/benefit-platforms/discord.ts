import type { BenefitStrategy, StrategyContext } from '../benefit-grants/strategies.js';
import type { DiscordPlatformConfig } from '../config/index.js';
import type { CustomerAccountService } from '../customer-accounts/service.js';
import { expectStatus, platformCall, PlatformError } from '../customer-accounts/platform-http.js';

interface DiscordTerms {
  guild_id: string;
  role_id: string;
  kick_member: boolean;
}

export const CONNECT_DISCORD = 'Connect your Discord account to receive this benefit.';

/**
 * discord (Polar's strategy): the customer's connected Discord account joins the server (guild) with the benefit's
 * role, through the bot and the customer's `guilds.join` token; revoked, the role is removed, or the member kicked
 * when the benefit says so. Without a connected account the grant waits for the customer (action required).
 */
export function discordStrategy(deps: {
  config: DiscordPlatformConfig;
  accounts: Pick<CustomerAccountService, 'usableAccount'>;
}): BenefitStrategy {
  const { config } = deps;

  function call(method: 'PUT' | 'DELETE', path: string, body?: unknown) {
    if (!config.botToken) throw new PlatformError('Discord', 0, 'TILL_DISCORD_BOT_TOKEN is not configured');
    return platformCall(
      'Discord',
      method,
      `${config.apiUrl}${path}`,
      { authorization: `Bot ${config.botToken}` },
      body,
    );
  }
  const member = (guildId: string, userId: string) =>
    `/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(userId)}`;

  async function removeRole(terms: { guild_id: string; role_id: string }, userId: string): Promise<void> {
    const removed = await call(
      'DELETE',
      `${member(terms.guild_id, userId)}/roles/${encodeURIComponent(terms.role_id)}`,
    );
    // 404: the member left the server already.
    expectStatus('Discord', 'role removal', removed, [204, 404]);
  }

  async function grant(ctx: StrategyContext) {
    const terms = ctx.benefit.properties as unknown as DiscordTerms;
    const account = await deps.accounts.usableAccount(ctx.trx, ctx.grant.customerId, 'discord');
    if (!account) return { needsCustomerAction: CONNECT_DISCORD };
    // 201: joined with the role; 204: already a member, and Discord ignores `roles` then, hence the role call.
    const added = await call('PUT', member(terms.guild_id, account.accountId), {
      access_token: account.accessToken,
      roles: [terms.role_id],
    });
    expectStatus('Discord', 'guild member add', added, [201, 204]);
    const role = await call(
      'PUT',
      `${member(terms.guild_id, account.accountId)}/roles/${encodeURIComponent(terms.role_id)}`,
    );
    expectStatus('Discord', 'role add', role, [204]);
    return {
      properties: {
        account_id: account.accountId,
        guild_id: terms.guild_id,
        role_id: terms.role_id,
        granted_account_id: account.accountId,
      },
    };
  }

  const grantedTo = (ctx: StrategyContext) =>
    typeof ctx.grant.properties.granted_account_id === 'string' ? ctx.grant.properties.granted_account_id : null;

  return {
    grant,
    async revoke(ctx) {
      const userId = grantedTo(ctx);
      const terms = ctx.benefit.properties as unknown as DiscordTerms;
      const granted = {
        guild_id: typeof ctx.grant.properties.guild_id === 'string' ? ctx.grant.properties.guild_id : terms.guild_id,
        role_id: typeof ctx.grant.properties.role_id === 'string' ? ctx.grant.properties.role_id : terms.role_id,
      };
      if (!userId) return ctx.grant.properties;
      if (terms.kick_member) {
        const kicked = await call('DELETE', member(granted.guild_id, userId));
        expectStatus('Discord', 'member kick', kicked, [204, 404]);
      } else await removeRole(granted, userId);
      return ctx.grant.properties;
    },
    async update(ctx) {
      const userId = grantedTo(ctx);
      const terms = ctx.benefit.properties as unknown as DiscordTerms;
      const before = ctx.grant.properties as { guild_id?: string; role_id?: string };
      if (
        userId &&
        before.guild_id &&
        before.role_id &&
        (before.role_id !== terms.role_id || before.guild_id !== terms.guild_id)
      )
        await removeRole({ guild_id: before.guild_id, role_id: before.role_id }, userId);
      return grant(ctx);
    },
  };
}
