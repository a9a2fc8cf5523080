import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';
import type { SecretBox } from '../kernel/secret-box.js';

export const ACCOUNT_PLATFORMS = ['github', 'discord'] as const;
export type AccountPlatform = (typeof ACCOUNT_PLATFORMS)[number];

/** A customer's connected GitHub or Discord account, tokens opened (they are sealed at rest). */
export interface CustomerAccount {
  id: string;
  organizationId: string;
  customerId: string;
  platform: AccountPlatform;
  accountId: string;
  username: string | null;
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

type Row = Record<string, unknown>;

/** Each token is sealed for its row and column, so a ciphertext moved elsewhere does not open. */
const context = (rowId: string, column: string) => `customer_oauth_accounts.${column}:${rowId}`;

export function customerAccountsRepository(db: Db, box: SecretBox) {
  const seal = (id: string, column: string, value: string | null) =>
    value ? box.seal(value, context(id, column)) : null;

  function fromRow(row: Row): CustomerAccount {
    const id = String(row.id);
    return {
      id,
      organizationId: String(row.organization_id),
      customerId: String(row.customer_id),
      platform: String(row.platform) as AccountPlatform,
      accountId: String(row.account_id),
      username: (row.account_username as string | null) ?? null,
      accessToken: box.open(String(row.access_token), context(id, 'access_token')),
      refreshToken: row.refresh_token ? box.open(String(row.refresh_token), context(id, 'refresh_token')) : null,
      expiresAt: toDateOrNull(row.expires_at),
      createdAt: toDate(row.created_at),
      modifiedAt: toDateOrNull(row.modified_at),
    };
  }

  return {
    async find(customerId: string, platform: AccountPlatform): Promise<CustomerAccount | null> {
      const row = await db('customer_oauth_accounts').where({ customer_id: customerId, platform }).first();
      return row ? fromRow(row) : null;
    },

    /** The customer's account on the platform, replaced when they connect again (one per platform, as in Polar). */
    async save(account: CustomerAccount): Promise<void> {
      await db('customer_oauth_accounts')
        .where({ customer_id: account.customerId, platform: account.platform })
        .delete();
      await db('customer_oauth_accounts').insert({
        id: account.id,
        organization_id: account.organizationId,
        customer_id: account.customerId,
        platform: account.platform,
        account_id: account.accountId,
        account_username: account.username,
        access_token: seal(account.id, 'access_token', account.accessToken),
        refresh_token: seal(account.id, 'refresh_token', account.refreshToken),
        expires_at: account.expiresAt,
        created_at: account.createdAt,
        modified_at: account.modifiedAt,
      });
    },

    async updateTokens(
      id: string,
      tokens: { accessToken: string; refreshToken: string | null; expiresAt: Date | null },
      at: Date,
    ): Promise<void> {
      await db('customer_oauth_accounts')
        .where({ id })
        .update({
          access_token: seal(id, 'access_token', tokens.accessToken),
          refresh_token: seal(id, 'refresh_token', tokens.refreshToken),
          expires_at: tokens.expiresAt,
          modified_at: at,
        });
    },
  };
}
