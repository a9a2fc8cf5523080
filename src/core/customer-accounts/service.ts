import { randomUUID } from 'node:crypto';
import type { BenefitPlatformsConfig } from '../config/index.js';
import { customersRepository } from '../customers/repository.js';
import type { CustomerSessionService } from '../customers/sessions.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { retryGrantsAwaitingAccount } from '../grant-triggers/triggers.js';
import type { Clock } from '../kernel/clock.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { createProviderRegistry, OAuthFlowError, type ResolvedProvider } from '../oauth/client.js';
import { DEFAULT_OAUTH } from '../config/index.js';
import { badRequest, fieldError, unauthorized } from '../polar-api/errors.js';
import { platformCall } from './platform-http.js';
import { platformProvider } from './providers.js';
import { customerAccountsRepository, type AccountPlatform, type CustomerAccount } from './repository.js';
import { connectStateSigner } from './state.js';

/** The benefit types each platform's account unlocks. */
const BENEFIT_TYPES: Record<AccountPlatform, string> = { github: 'github_repository', discord: 'discord' };

/** An access token with less than this left is refreshed before a benefit uses it. */
const REFRESH_MARGIN_MS = 60_000;

export function callbackPath(): string {
  return '/v1/customer-portal/oauth-accounts/callback';
}

/**
 * Customers' GitHub and Discord accounts, connected from the portal through the social sign-in OAuth client (as a
 * link to the customer, never a user sign-in). Connecting retries the customer's grants that waited for it.
 */
export function createCustomerAccountService(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  config: BenefitPlatformsConfig;
  baseUrl: string;
  secret: string;
  trustedOrigins: string[];
  customerSessions: Pick<CustomerSessionService, 'authenticate'>;
}) {
  const { db, clock, box, config } = deps;
  const registry = createProviderRegistry(DEFAULT_OAUTH, clock);
  const states = connectStateSigner(deps.secret, box);
  const redirectUri = `${deps.baseUrl}${callbackPath()}`;
  const allowedOrigins = new Set([new URL(deps.baseUrl).origin, ...deps.trustedOrigins.map(originOf)]);

  function originOf(value: string): string {
    try {
      return new URL(value).origin;
    } catch {
      return value;
    }
  }

  function provider(platform: AccountPlatform): ResolvedProvider {
    const resolved = platformProvider(config, platform);
    if (!resolved)
      throw badRequest(
        `Connecting a ${platform === 'github' ? 'GitHub' : 'Discord'} account is not configured on this server.`,
      );
    return resolved;
  }

  function checkReturnTo(value: string): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw fieldError(['query', 'return_to'], 'Input should be an absolute URL', 'url_parsing');
    }
    if (!allowedOrigins.has(url.origin))
      throw fieldError(['query', 'return_to'], 'return_to must be on this server or a trusted origin', 'value_error');
    return url.href;
  }

  function back(returnTo: string, params: Record<string, string>): string {
    const url = new URL(returnTo);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.href;
  }

  async function profileOf(platform: AccountPlatform, resolved: ResolvedProvider, accessToken: string) {
    const answer = await platformCall(platform, 'GET', resolved.userinfoEndpoint!, {
      authorization: `Bearer ${accessToken}`,
    });
    const raw = answer.data as Record<string, unknown> | null;
    const id = raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? String(raw.id) : null;
    const username = raw ? (platform === 'github' ? raw.login : raw.username) : null;
    if (answer.status !== 200 || !id || typeof username !== 'string')
      throw new OAuthFlowError('unable_to_get_user_info');
    return { id, username };
  }

  return {
    /**
     * `GET /v1/customer-portal/oauth-accounts/authorize`: where to send the customer's browser to connect an account
     * (the provider's authorize URL, with a state signed for this customer).
     */
    async authorizeUrl(input: { token: string | undefined; platform: AccountPlatform; returnTo: string }) {
      const actor = input.token ? await deps.customerSessions.authenticate(input.token) : null;
      if (!actor) throw unauthorized();
      const returnTo = checkReturnTo(input.returnTo);
      const resolved = provider(input.platform);
      const { state, codeVerifier } = states.issue(
        { customerId: actor.customer.id, platform: input.platform, returnTo },
        clock.now(),
      );
      return registry.authorizationUrl(resolved, { state, codeVerifier, redirectUri });
    },

    /**
     * `GET /v1/customer-portal/oauth-accounts/callback`: trades the code, stores the account (tokens sealed) and
     * retries the grants waiting for it, in one transaction; answers where to send the browser back.
     */
    async callback(query: { state?: string; code?: string; error?: string }): Promise<string> {
      const opened = states.open(query.state, clock.now());
      if (opened === 'invalid') throw badRequest('The OAuth state is not valid.');
      if (opened === 'expired') throw badRequest('The OAuth state has expired; connect the account again.');
      const { platform, returnTo, customerId } = opened;
      if (query.error || !query.code) return back(returnTo, { platform, error: query.error || 'missing_code' });
      const resolved = provider(platform);
      let account: CustomerAccount;
      try {
        const tokens = await registry.exchangeCode(resolved, {
          code: query.code,
          codeVerifier: states.verifier(opened),
          redirectUri,
        });
        const profile = await profileOf(platform, resolved, tokens.accessToken!);
        const now = clock.now();
        account = {
          id: randomUUID(),
          organizationId: '',
          customerId,
          platform,
          accountId: profile.id,
          username: profile.username,
          accessToken: tokens.accessToken!,
          refreshToken: tokens.refreshToken,
          expiresAt: tokens.accessTokenExpiresAt,
          createdAt: now,
          modifiedAt: null,
        };
      } catch (error) {
        const code = error instanceof OAuthFlowError ? error.code : 'oauth_failed';
        return back(returnTo, { platform, error: code });
      }
      const stored = await transaction(db, async (trx) => {
        const customer = await customersRepository(trx).findById(customerId);
        if (!customer) return false;
        await customerAccountsRepository(trx, box).save({ ...account, organizationId: customer.organizationId });
        await retryGrantsAwaitingAccount(trx, customerId, [BENEFIT_TYPES[platform]], account.createdAt);
        return true;
      });
      return back(returnTo, stored ? { platform, connected: 'true' } : { platform, error: 'customer_not_found' });
    },

    /**
     * The customer's account on the platform for a benefit strategy, its access token refreshed when it is about to
     * expire (Discord's last a week); null when none is connected.
     */
    async usableAccount(trx: Db, customerId: string, platform: AccountPlatform): Promise<CustomerAccount | null> {
      const repo = customerAccountsRepository(trx, box);
      const account = await repo.find(customerId, platform);
      if (!account) return null;
      const now = clock.now();
      if (
        !account.expiresAt ||
        account.expiresAt.getTime() - REFRESH_MARGIN_MS > now.getTime() ||
        !account.refreshToken
      )
        return account;
      const tokens = await registry.refresh(provider(platform), {
        accessToken: account.accessToken,
        refreshToken: account.refreshToken,
        idToken: null,
        accessTokenExpiresAt: account.expiresAt,
        refreshTokenExpiresAt: null,
        scopes: [],
      });
      const renewed = {
        accessToken: tokens.accessToken!,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.accessTokenExpiresAt,
      };
      await repo.updateTokens(account.id, renewed, now);
      return { ...account, ...renewed, modifiedAt: now };
    },
  };
}

export type CustomerAccountService = ReturnType<typeof createCustomerAccountService>;
