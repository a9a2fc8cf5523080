import type { Db } from '../database/index.js';
import { orWhereStartsWith, toBool, toDate } from '../database/index.js';
import { normalizeEmail } from '../kernel/email.js';

export interface User {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Session {
  id: string;
  tokenHash: string;
  userId: string;
  expiresAt: Date;
  rememberMe: boolean;
  ipAddress: string;
  userAgent: string;
  createdAt: Date;
  updatedAt: Date;
  activeOrganizationId: string | null;
  activeTeamId: string | null;
}

export interface Account {
  id: string;
  userId: string;
  providerId: string;
  accountId: string;
  password: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Row = Record<string, unknown>;

export const USER_COLUMNS = ['id', 'email', 'name', 'email_verified', 'image', 'created_at', 'updated_at'];
const SESSION_COLUMNS = [
  'id',
  'token_hash',
  'user_id',
  'expires_at',
  'remember_me',
  'ip_address',
  'user_agent',
  'created_at',
  'updated_at',
  'active_organization_id',
  'active_team_id',
];

export function userFromRow(row: Row, prefix = ''): User {
  return {
    id: row[`${prefix}id`] as string,
    email: row[`${prefix}email`] as string,
    name: row[`${prefix}name`] as string,
    emailVerified: toBool(row[`${prefix}email_verified`]),
    image: (row[`${prefix}image`] as string | null) ?? null,
    createdAt: toDate(row[`${prefix}created_at`]),
    updatedAt: toDate(row[`${prefix}updated_at`]),
  };
}

function sessionFromRow(row: Row): Session {
  return {
    id: row.id as string,
    tokenHash: row.token_hash as string,
    userId: row.user_id as string,
    expiresAt: toDate(row.expires_at),
    rememberMe: toBool(row.remember_me),
    ipAddress: (row.ip_address as string) ?? '',
    userAgent: (row.user_agent as string) ?? '',
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    activeOrganizationId: (row.active_organization_id as string | null) ?? null,
    activeTeamId: (row.active_team_id as string | null) ?? null,
  };
}

function accountFromRow(row: Row): Account {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    providerId: row.provider_id as string,
    accountId: row.account_id as string,
    password: (row.password as string | null) ?? null,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export const CREDENTIAL_PROVIDER = 'credential';

/**
 * `normalized_email` (unique, nullable) is derived here from every address written, so no path that creates a user
 * or changes an address can leave it stale; it is never read into a `User`, so no wire can show it. A user whose
 * normalized address another user already holds cannot be written: the unique index refuses, as for `email`.
 */
export function usersRepository(db: Db) {
  return {
    async insert(user: User): Promise<void> {
      await db('users').insert({
        id: user.id,
        email: user.email,
        normalized_email: normalizeEmail(user.email),
        name: user.name,
        email_verified: user.emailVerified,
        image: user.image,
        created_at: user.createdAt,
        updated_at: user.updatedAt,
      });
    },
    async findById(id: string): Promise<User | null> {
      const row = await db('users').select(USER_COLUMNS).where({ id }).first();
      return row ? userFromRow(row) : null;
    },
    async findByEmail(email: string): Promise<User | null> {
      const row = await db('users').select(USER_COLUMNS).where({ email }).first();
      return row ? userFromRow(row) : null;
    },
    async findByNormalizedEmail(normalizedEmail: string): Promise<User | null> {
      const row = await db('users').select(USER_COLUMNS).where({ normalized_email: normalizedEmail }).first();
      return row ? userFromRow(row) : null;
    },
    /**
     * A user other than `exceptUserId` holding the (lower-cased) address or its normalized form: whoever makes the
     * address taken. A user may move between spellings of their own mailbox, hence the exception.
     */
    async findHolder(email: string, exceptUserId?: string): Promise<User | null> {
      const query = db('users')
        .select(USER_COLUMNS)
        .where((holder) => {
          holder.where({ email }).orWhere({ normalized_email: normalizeEmail(email) });
        });
      if (exceptUserId !== undefined) query.whereNot({ id: exceptUserId });
      const row = await query.first();
      return row ? userFromRow(row) : null;
    },
    async update(
      id: string,
      changes: { name?: string; image?: string | null; email?: string; emailVerified?: boolean; updatedAt: Date },
    ): Promise<User | null> {
      const patch: Row = { updated_at: changes.updatedAt };
      if (changes.name !== undefined) patch.name = changes.name;
      if (changes.image !== undefined) patch.image = changes.image;
      if (changes.email !== undefined) {
        patch.email = changes.email;
        patch.normalized_email = normalizeEmail(changes.email);
      }
      if (changes.emailVerified !== undefined) patch.email_verified = changes.emailVerified;
      const rows = await db('users').where({ id }).update(patch).returning(USER_COLUMNS);
      return rows[0] ? userFromRow(rows[0]) : null;
    },
    /** Sessions, accounts and mails go with the user (foreign keys cascade). */
    async delete(id: string): Promise<number> {
      return db('users').where({ id }).del();
    },
  };
}

export function accountsRepository(db: Db) {
  return {
    async insert(account: Account): Promise<void> {
      await db('accounts').insert({
        id: account.id,
        user_id: account.userId,
        provider_id: account.providerId,
        account_id: account.accountId,
        password: account.password,
        created_at: account.createdAt,
        updated_at: account.updatedAt,
      });
    },
    async findCredential(userId: string): Promise<Account | null> {
      const row = await db('accounts').where({ user_id: userId, provider_id: CREDENTIAL_PROVIDER }).first();
      return row ? accountFromRow(row) : null;
    },
    async setPassword(accountId: string, password: string, at: Date): Promise<void> {
      await db('accounts').where({ id: accountId }).update({ password, updated_at: at });
    },
  };
}

export function sessionsRepository(db: Db) {
  return {
    async insert(session: Session): Promise<void> {
      await db('sessions').insert({
        id: session.id,
        token_hash: session.tokenHash,
        user_id: session.userId,
        expires_at: session.expiresAt,
        remember_me: session.rememberMe,
        ip_address: session.ipAddress,
        user_agent: session.userAgent,
        created_at: session.createdAt,
        updated_at: session.updatedAt,
        active_organization_id: session.activeOrganizationId,
        active_team_id: session.activeTeamId,
      });
    },
    /** The hot path of every authenticated request: one indexed lookup that also brings the user. */
    async findWithUserByTokenHash(tokenHash: string): Promise<{ session: Session; user: User } | null> {
      const row = await db('sessions as s')
        .join('users as u', 'u.id', 's.user_id')
        .select([
          ...SESSION_COLUMNS.map((column) => `s.${column}`),
          ...USER_COLUMNS.map((column) => `u.${column} as u_${column}`),
        ])
        .where('s.token_hash', tokenHash)
        .first();
      if (!row) return null;
      return { session: sessionFromRow(row), user: userFromRow(row, 'u_') };
    },
    async listActiveByUser(userId: string, now: Date): Promise<Session[]> {
      const rows = await db('sessions')
        .select(SESSION_COLUMNS)
        .where({ user_id: userId })
        .andWhere('expires_at', '>', now)
        .orderBy('created_at', 'asc');
      return rows.map(sessionFromRow);
    },
    async extend(id: string, expiresAt: Date, updatedAt: Date): Promise<void> {
      await db('sessions').where({ id }).update({ expires_at: expiresAt, updated_at: updatedAt });
    },
    async deleteById(id: string): Promise<void> {
      await db('sessions').where({ id }).del();
    },
    async deleteByTokenHashForUser(userId: string, tokenHash: string): Promise<number> {
      return db('sessions').where({ user_id: userId, token_hash: tokenHash }).del();
    },
    async deleteAllForUser(userId: string): Promise<number> {
      return db('sessions').where({ user_id: userId }).del();
    },
    async deleteOthersForUser(userId: string, keepId: string): Promise<number> {
      return db('sessions').where({ user_id: userId }).andWhereNot({ id: keepId }).del();
    },
    async deleteExpired(now: Date): Promise<number> {
      return db('sessions').where('expires_at', '<=', now).del();
    },
    async setActiveOrganization(id: string, organizationId: string | null, teamId: string | null): Promise<void> {
      await db('sessions').where({ id }).update({ active_organization_id: organizationId, active_team_id: teamId });
    },
    /** Owners of the sessions that had the organization active, so their cached sessions can be dropped. */
    async userIdsWithActiveOrganization(organizationId: string, userId?: string): Promise<string[]> {
      const query = db('sessions').distinct('user_id').where({ active_organization_id: organizationId });
      if (userId) query.andWhere({ user_id: userId });
      return (await query).map((row: Row) => row.user_id as string);
    },
    async clearActiveOrganization(organizationId: string, userId?: string): Promise<void> {
      const query = db('sessions').where({ active_organization_id: organizationId });
      if (userId) query.andWhere({ user_id: userId });
      await query.update({ active_organization_id: null, active_team_id: null });
    },
  };
}

/** The `client` of the row that counts an address's failures over every client. */
export const ALL_CLIENTS = '*';

export interface FailureWindow {
  failures: number;
  windowStartedAt: Date;
}

export function signInFailuresRepository(db: Db) {
  return {
    /** The address's count over every client, and the given client's own. */
    async get(email: string, client: string): Promise<{ all: FailureWindow | null; own: FailureWindow | null }> {
      const rows = await db('sign_in_failures').where({ email }).whereIn('client', [ALL_CLIENTS, client]);
      const window = (key: string): FailureWindow | null => {
        const row = rows.find((candidate: Row) => candidate.client === key);
        return row ? { failures: Number(row.failures), windowStartedAt: toDate(row.window_started_at) } : null;
      };
      return { all: window(ALL_CLIENTS), own: window(client) };
    },
    /**
     * Counts one failure for the client and for the address, each opening a new window when its last one started
     * more than windowMs ago. One statement, so the two counts never disagree about a failure.
     */
    async record(email: string, client: string, now: Date, windowMs: number): Promise<void> {
      const windowFloor = new Date(now.getTime() - windowMs);
      await db('sign_in_failures')
        .insert([
          { email, client: ALL_CLIENTS, failures: 1, window_started_at: now },
          { email, client, failures: 1, window_started_at: now },
        ])
        .onConflict(['email', 'client'])
        .merge({
          failures: db.raw(
            'case when sign_in_failures.window_started_at <= ? then 1 else sign_in_failures.failures + 1 end',
            [windowFloor],
          ),
          window_started_at: db.raw(
            'case when sign_in_failures.window_started_at <= ? then ? else sign_in_failures.window_started_at end',
            [windowFloor, now],
          ),
        });
    },
    /** Forgets one client's failures; the address's count stays, so others who failed stay held back. */
    async clearClient(email: string, client: string): Promise<void> {
      await db('sign_in_failures').where({ email, client }).del();
    },
    async clear(email: string): Promise<void> {
      await db('sign_in_failures').where({ email }).del();
    },
  };
}

/** A single-use token's record: `identifier` names the purpose and carries a digest of the token, never the token. */
export interface Verification {
  id: string;
  identifier: string;
  value: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export function verificationsRepository(db: Db) {
  return {
    async insert(verification: Verification): Promise<void> {
      await db('verifications').insert({
        id: verification.id,
        identifier: verification.identifier,
        value: verification.value,
        expires_at: verification.expiresAt,
        created_at: verification.createdAt,
        updated_at: verification.updatedAt,
      });
    },
    async findActive(identifier: string, now: Date): Promise<Verification | null> {
      const row = await db('verifications')
        .where({ identifier })
        .andWhere('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .first();
      if (!row) return null;
      return {
        id: row.id,
        identifier: row.identifier,
        value: row.value,
        expiresAt: toDate(row.expires_at),
        createdAt: toDate(row.created_at),
        updatedAt: toDate(row.updated_at),
      };
    },
    /**
     * Uses up an unexpired record: true for exactly one of any number of concurrent callers. With `value`, only a
     * record bound to that value (a user id) is used, so a stranger's token is neither accepted nor burnt.
     */
    async consume(where: { id?: string; identifier?: string; value?: string }, now: Date): Promise<boolean> {
      if (where.id === undefined && where.identifier === undefined)
        throw new Error('consume needs an id or an identifier');
      const query = db('verifications').andWhere('expires_at', '>', now);
      if (where.id !== undefined) query.where('id', where.id);
      if (where.identifier !== undefined) query.where('identifier', where.identifier);
      if (where.value !== undefined) query.where('value', where.value);
      return (await query.del()) > 0;
    },
    /** Drops the user's outstanding reset and deletion tokens. */
    async deleteForUser(userId: string, prefixes: string[]): Promise<void> {
      await db('verifications')
        .where('value', userId)
        .andWhere((any) => {
          for (const prefix of prefixes) orWhereStartsWith(any, 'identifier', prefix);
        })
        .del();
    },
  };
}
