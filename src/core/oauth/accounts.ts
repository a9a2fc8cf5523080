import { CREDENTIAL_PROVIDER } from '../auth/repository.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction } from '../database/index.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { ProviderRegistry, ResolvedProvider } from './client.js';
import { socialAccountsRepository, type SocialAccount } from './repository.js';

/** Spec §9: an access token with less than this left is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 5_000;

const fail = (status: number, code: string, message: string) => new DomainError(status, code, message);

export interface AccountWire {
  id: string;
  providerId: string;
  accountId: string;
  userId: string;
  createdAt: string;
  updatedAt: string;
  scopes: string[];
}

/** The signed-in user's accounts (Better Auth's list-accounts, unlink-account, get-access-token, refresh-token, account-info). */
export function createOAuthAccounts(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  registry: ProviderRegistry;
  allowUnlinkingAll?: boolean;
}) {
  const { db, clock, box, registry } = deps;
  const repo = () => socialAccountsRepository(db, box);

  /** The account and its configured provider; credential accounts and unconfigured providers are refused. */
  async function providerAccount(
    userId: string,
    accountId: string | undefined,
  ): Promise<{ account: SocialAccount; provider: ResolvedProvider }> {
    const account = accountId ? await repo().findForUser(userId, accountId) : null;
    if (!account) throw fail(400, 'ACCOUNT_NOT_FOUND', 'Account not found');
    const provider = account.providerId === CREDENTIAL_PROVIDER ? null : await registry.get(account.providerId);
    if (!provider) throw fail(400, 'PROVIDER_NOT_SUPPORTED', 'Provider credential is not supported.');
    return { account, provider };
  }

  async function refresh(account: SocialAccount, provider: ResolvedProvider): Promise<SocialAccount> {
    if (!account.refreshToken) throw fail(400, 'REFRESH_TOKEN_NOT_FOUND', 'Refresh token not found');
    const tokens = await registry.refresh(provider, { ...account, refreshToken: account.refreshToken });
    await repo().updateTokens(account.id, tokens, clock.now());
    return { ...account, ...tokens };
  }

  return {
    async list(userId: string): Promise<AccountWire[]> {
      const accounts = await repo().listForUser(userId);
      return accounts.map((account) => ({
        id: account.id,
        providerId: account.providerId,
        accountId: account.accountId,
        userId: account.userId,
        createdAt: account.createdAt.toISOString(),
        updatedAt: account.updatedAt.toISOString(),
        scopes: account.scopes,
      }));
    },

    async unlink(userId: string, input: { accountId?: string; providerId?: string }): Promise<void> {
      await transaction(db, async (trx) => {
        const accounts = await socialAccountsRepository(trx, box).listForUser(userId);
        const target = input.providerId
          ? accounts.find(
              (account) =>
                account.providerId === input.providerId && (!input.accountId || account.accountId === input.accountId),
            )
          : accounts.find((account) => account.id === input.accountId);
        if (!target) throw fail(400, 'ACCOUNT_NOT_FOUND', 'Account not found');
        if (accounts.length <= 1 && !deps.allowUnlinkingAll)
          throw fail(400, 'FAILED_TO_UNLINK_LAST_ACCOUNT', "You can't unlink your last account");
        await socialAccountsRepository(trx, box).delete(userId, target.id);
      });
    },

    async accessToken(userId: string, accountId: string | undefined) {
      const found = await providerAccount(userId, accountId);
      let account = found.account;
      const expiresAt = account.accessTokenExpiresAt?.getTime();
      try {
        if (account.refreshToken && expiresAt !== undefined && expiresAt - clock.now().getTime() < REFRESH_MARGIN_MS)
          account = await refresh(account, found.provider);
      } catch {
        throw fail(400, 'FAILED_TO_GET_ACCESS_TOKEN', 'Failed to get a valid access token');
      }
      if (!account.accessToken) throw fail(400, 'FAILED_TO_GET_ACCESS_TOKEN', 'Failed to get a valid access token');
      return {
        accessToken: account.accessToken,
        ...(account.accessTokenExpiresAt ? { accessTokenExpiresAt: account.accessTokenExpiresAt.toISOString() } : {}),
        scopes: account.scopes,
        ...(account.idToken ? { idToken: account.idToken } : {}),
      };
    },

    async refreshToken(userId: string, accountId: string | undefined) {
      const found = await providerAccount(userId, accountId);
      if (!found.account.refreshToken) throw fail(400, 'REFRESH_TOKEN_NOT_FOUND', 'Refresh token not found');
      let account: SocialAccount;
      try {
        account = await refresh(found.account, found.provider);
      } catch {
        throw fail(400, 'FAILED_TO_REFRESH_ACCESS_TOKEN', 'Failed to refresh access token');
      }
      return {
        accessToken: account.accessToken,
        refreshToken: account.refreshToken,
        accessTokenExpiresAt: account.accessTokenExpiresAt?.toISOString() ?? null,
        refreshTokenExpiresAt: account.refreshTokenExpiresAt?.toISOString() ?? null,
        scope: account.scopes.join(','),
        idToken: account.idToken,
        providerId: account.providerId,
        accountId: account.accountId,
      };
    },

    async info(userId: string, accountId: string | undefined) {
      const account = accountId ? await repo().findForUser(userId, accountId) : null;
      if (!account) throw fail(400, 'ACCOUNT_NOT_FOUND', 'Account not found');
      const provider = account.providerId === CREDENTIAL_PROVIDER ? null : await registry.get(account.providerId);
      if (!provider)
        throw fail(400, 'PROVIDER_NOT_CONFIGURED', 'Account is not associated with a configured social provider.');
      if (!account.accessToken && !account.idToken) throw fail(400, 'ACCESS_TOKEN_NOT_FOUND', 'Access token not found');
      let fetched;
      try {
        fetched = await registry.fetchProfile(provider, account);
      } catch {
        throw fail(401, 'FAILED_TO_GET_USER_INFO', 'Failed to get user info');
      }
      const { profile, raw } = fetched;
      return {
        user: {
          id: profile.id,
          name: profile.name,
          email: profile.email,
          image: profile.image,
          emailVerified: profile.emailVerified,
        },
        data: raw,
        account: { id: account.id, providerId: account.providerId, accountId: account.accountId },
      };
    },
  };
}

export type OAuthAccounts = ReturnType<typeof createOAuthAccounts>;
