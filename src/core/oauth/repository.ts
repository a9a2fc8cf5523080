import type { Db } from '../database/index.js';
import { toDate } from '../database/index.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { TokenSet } from './client.js';

/** An account row with its provider tokens opened (they are sealed at rest). */
export interface SocialAccount extends TokenSet {
  id: string;
  userId: string;
  providerId: string;
  accountId: string;
  createdAt: Date;
  updatedAt: Date;
}

type Row = Record<string, any>;
type TokenColumn = 'access_token' | 'refresh_token' | 'id_token';

/** Each token is sealed for its own row and column, so a ciphertext moved elsewhere does not open. */
const context = (rowId: string, column: string) => `accounts.${column}:${rowId}`;

export function socialAccountsRepository(db: Db, box: SecretBox) {
  const open = (row: Row, column: TokenColumn): string | null => {
    const value = row[column] as string | null;
    return value ? box.open(value, context(row.id, column)) : null;
  };
  const seal = (rowId: string, column: string, value: string | null): string | null =>
    value ? box.seal(value, context(rowId, column)) : null;

  function fromRow(row: Row): SocialAccount {
    return {
      id: row.id,
      userId: row.user_id,
      providerId: row.provider_id,
      accountId: row.account_id,
      accessToken: open(row, 'access_token'),
      refreshToken: open(row, 'refresh_token'),
      idToken: open(row, 'id_token'),
      accessTokenExpiresAt: row.access_token_expires_at ? toDate(row.access_token_expires_at) : null,
      refreshTokenExpiresAt: row.refresh_token_expires_at ? toDate(row.refresh_token_expires_at) : null,
      // Stored comma-joined, as Better Auth does.
      scopes: typeof row.scope === 'string' && row.scope ? row.scope.split(',') : [],
      createdAt: toDate(row.created_at),
      updatedAt: toDate(row.updated_at),
    };
  }

  function tokenColumns(rowId: string, tokens: TokenSet): Row {
    return {
      access_token: seal(rowId, 'access_token', tokens.accessToken),
      refresh_token: seal(rowId, 'refresh_token', tokens.refreshToken),
      id_token: seal(rowId, 'id_token', tokens.idToken),
      access_token_expires_at: tokens.accessTokenExpiresAt,
      refresh_token_expires_at: tokens.refreshTokenExpiresAt,
      scope: tokens.scopes.join(','),
    };
  }

  return {
    async findByProviderAccount(providerId: string, accountId: string): Promise<SocialAccount | null> {
      const row = await db('accounts').where({ provider_id: providerId, account_id: accountId }).first();
      return row ? fromRow(row) : null;
    },
    async findForUser(userId: string, id: string): Promise<SocialAccount | null> {
      const row = await db('accounts').where({ id, user_id: userId }).first();
      return row ? fromRow(row) : null;
    },
    async listForUser(userId: string): Promise<Array<Omit<SocialAccount, keyof TokenSet> & { scopes: string[] }>> {
      const rows = await db('accounts')
        .select(['id', 'user_id', 'provider_id', 'account_id', 'scope', 'created_at', 'updated_at'])
        .where({ user_id: userId })
        .orderBy('created_at', 'asc');
      return rows.map((row: Row) => ({
        id: row.id,
        userId: row.user_id,
        providerId: row.provider_id,
        accountId: row.account_id,
        scopes: typeof row.scope === 'string' && row.scope ? row.scope.split(',') : [],
        createdAt: toDate(row.created_at),
        updatedAt: toDate(row.updated_at),
      }));
    },
    async countForUser(userId: string): Promise<number> {
      const row = await db('accounts').where({ user_id: userId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async insert(
      account: { id: string; userId: string; providerId: string; accountId: string; at: Date },
      tokens: TokenSet,
    ): Promise<void> {
      await db('accounts').insert({
        id: account.id,
        user_id: account.userId,
        provider_id: account.providerId,
        account_id: account.accountId,
        ...tokenColumns(account.id, tokens),
        created_at: account.at,
        updated_at: account.at,
      });
    },
    async updateTokens(rowId: string, tokens: TokenSet, at: Date): Promise<void> {
      await db('accounts')
        .where({ id: rowId })
        .update({ ...tokenColumns(rowId, tokens), updated_at: at });
    },
    async delete(userId: string, rowId: string): Promise<number> {
      return db('accounts').where({ id: rowId, user_id: userId }).del();
    },
  };
}
