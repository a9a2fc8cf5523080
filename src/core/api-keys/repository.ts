import type { User } from '../auth/repository.js';
import { USER_COLUMNS, userFromRow } from '../auth/repository.js';
import type { Db } from '../database/index.js';
import { dialect, parseJson, toBool, toDate, toDateOrNull } from '../database/index.js';

export type ReferenceType = 'user' | 'organization';

export interface ApiKeyRecord {
  id: string;
  configId: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  keyHash: string;
  referenceType: ReferenceType;
  referenceId: string;
  enabled: boolean;
  rateLimitEnabled: boolean;
  rateLimitTimeWindow: number | null;
  rateLimitMax: number | null;
  rateLimitWindowStart: Date | null;
  requestCount: number;
  remaining: number | null;
  refillAmount: number | null;
  refillInterval: number | null;
  lastRefillAt: Date | null;
  lastRequest: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  permissions: Record<string, string[]> | null;
  metadata: Record<string, unknown> | null;
}

/** What an operator or owner may change; counters and the hash never change through here. */
export type ApiKeyChanges = Partial<
  Pick<
    ApiKeyRecord,
    | 'name'
    | 'enabled'
    | 'expiresAt'
    | 'metadata'
    | 'remaining'
    | 'refillAmount'
    | 'refillInterval'
    | 'rateLimitEnabled'
    | 'rateLimitTimeWindow'
    | 'rateLimitMax'
    | 'permissions'
  >
> & { updatedAt: Date };

type Row = Record<string, unknown>;

const COLUMNS: Record<keyof ApiKeyRecord, string> = {
  id: 'id',
  configId: 'config_id',
  name: 'name',
  start: 'start',
  prefix: 'prefix',
  keyHash: 'key_hash',
  referenceType: 'reference_type',
  referenceId: 'reference_id',
  enabled: 'enabled',
  rateLimitEnabled: 'rate_limit_enabled',
  rateLimitTimeWindow: 'rate_limit_time_window',
  rateLimitMax: 'rate_limit_max',
  rateLimitWindowStart: 'rate_limit_window_start',
  requestCount: 'request_count',
  remaining: 'remaining',
  refillAmount: 'refill_amount',
  refillInterval: 'refill_interval',
  lastRefillAt: 'last_refill_at',
  lastRequest: 'last_request',
  expiresAt: 'expires_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  permissions: 'permissions',
  metadata: 'metadata',
};
const COLUMN_LIST = Object.values(COLUMNS);
const JSON_FIELDS = new Set<string>(['permissions', 'metadata']);

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function fromRow(row: Row): ApiKeyRecord {
  return {
    id: row.id as string,
    configId: row.config_id as string,
    name: (row.name as string | null) ?? null,
    start: (row.start as string | null) ?? null,
    prefix: (row.prefix as string | null) ?? null,
    keyHash: row.key_hash as string,
    referenceType: row.reference_type as ReferenceType,
    referenceId: row.reference_id as string,
    enabled: toBool(row.enabled),
    rateLimitEnabled: toBool(row.rate_limit_enabled),
    rateLimitTimeWindow: numberOrNull(row.rate_limit_time_window),
    rateLimitMax: numberOrNull(row.rate_limit_max),
    rateLimitWindowStart: toDateOrNull(row.rate_limit_window_start),
    requestCount: Number(row.request_count ?? 0),
    remaining: numberOrNull(row.remaining),
    refillAmount: numberOrNull(row.refill_amount),
    refillInterval: numberOrNull(row.refill_interval),
    lastRefillAt: toDateOrNull(row.last_refill_at),
    lastRequest: toDateOrNull(row.last_request),
    expiresAt: toDateOrNull(row.expires_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    permissions: parseJson<Record<string, string[]>>(row.permissions),
    metadata: parseJson<Record<string, unknown>>(row.metadata),
  };
}

function toRow(values: Partial<ApiKeyRecord>): Row {
  const row: Row = {};
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const column = COLUMNS[field as keyof ApiKeyRecord];
    row[column] = JSON_FIELDS.has(field) && value !== null ? JSON.stringify(value) : value;
  }
  return row;
}

const SORT_COLUMNS = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  name: 'name',
  expiresAt: 'expires_at',
  lastRequest: 'last_request',
} as const;

export function apiKeysRepository(db: Db) {
  // Timestamps plus a number of milliseconds: timestamptz on PostgreSQL, epoch milliseconds on SQLite.
  const plusMs = (timestamp: string, ms: string) =>
    dialect(db) === 'postgres' ? `${timestamp} + ${ms} * interval '1 millisecond'` : `${timestamp} + ${ms}`;

  return {
    async insert(record: ApiKeyRecord): Promise<void> {
      await db('api_keys').insert(toRow(record));
    },

    async findById(id: string): Promise<ApiKeyRecord | null> {
      const row = await db('api_keys').select(COLUMN_LIST).where({ id }).first();
      return row ? fromRow(row) : null;
    },

    /** The lookup behind every key-authenticated request: one indexed read that also brings the owning user. */
    async findWithUserByHash(keyHash: string): Promise<{ key: ApiKeyRecord; user: User | null } | null> {
      const row = await db('api_keys as k')
        .leftJoin('users as u', function () {
          this.on('u.id', '=', 'k.reference_id').andOnVal('k.reference_type', '=', 'user');
        })
        .select([
          ...COLUMN_LIST.map((column) => `k.${column}`),
          ...USER_COLUMNS.map((column) => `u.${column} as u_${column}`),
        ])
        .where('k.key_hash', keyHash)
        .first();
      if (!row) return null;
      return { key: fromRow(row), user: row.u_id ? userFromRow(row, 'u_') : null };
    },

    async listByReference(
      referenceType: ReferenceType,
      referenceId: string,
      page: { limit?: number; offset?: number; sortBy?: keyof typeof SORT_COLUMNS; sortDirection?: 'asc' | 'desc' },
    ): Promise<{ keys: ApiKeyRecord[]; total: number }> {
      const where = { reference_type: referenceType, reference_id: referenceId };
      const [{ n }] = (await db('api_keys').where(where).count({ n: '*' })) as Array<{ n: number | string }>;
      const query = db('api_keys')
        .select(COLUMN_LIST)
        .where(where)
        .orderBy(SORT_COLUMNS[page.sortBy ?? 'createdAt'], page.sortDirection ?? 'asc')
        .orderBy('id', 'asc');
      if (page.offset !== undefined) query.offset(page.offset);
      if (page.limit !== undefined) query.limit(page.limit);
      return { keys: (await query).map(fromRow), total: Number(n) };
    },

    /** Null when the row is gone. */
    async update(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | null> {
      const rows = await db('api_keys').where({ id }).update(toRow(changes)).returning(COLUMN_LIST);
      return rows[0] ? fromRow(rows[0]) : null;
    },

    async deleteById(id: string): Promise<number> {
      return db('api_keys').where({ id }).del();
    },

    /** A deleted user's own keys, in the deletion's transaction (the owner column is not a foreign key). */
    async deleteOwnedByUser(userId: string): Promise<number> {
      return db('api_keys').where({ reference_type: 'user', reference_id: userId }).del();
    },

    async deleteOwnedByOrganization(organizationId: string): Promise<number> {
      return db('api_keys').where({ reference_type: 'organization', reference_id: organizationId }).del();
    },

    /** Expired keys, and keys of users who no longer exist (the owner is not a foreign key, see the migration). */
    async deleteExpiredAndOrphaned(now: Date): Promise<number> {
      const expired = await db('api_keys').where('expires_at', '<=', now).del();
      const orphaned = await db('api_keys')
        .where('reference_type', 'user')
        .whereNotExists(db('users').select(db.raw('1')).whereRaw('users.id = api_keys.reference_id'))
        .del();
      return expired + orphaned;
    },

    /**
     * Counts one use of a key with a usage limit or a rate limit, atomically, in one statement: refills `remaining`
     * when its interval has passed, takes one from it, and counts the request in the current fixed window (opening a
     * new one when the last has ended). Nothing changes, and null comes back, when the key has no uses left or its
     * window is full; concurrent requests on any number of daemons therefore never overspend.
     */
    async consume(id: string, now: Date): Promise<{ remaining: number | null; requestCount: number } | null> {
      const refillDue =
        '(remaining is not null and refill_interval is not null and refill_amount is not null' +
        ` and ${plusMs('coalesce(last_refill_at, created_at)', 'refill_interval')} < ?)`;
      const limited = '(rate_limit_enabled and rate_limit_time_window is not null and rate_limit_max is not null)';
      const windowOver = `(rate_limit_window_start is null or ${plusMs('rate_limit_window_start', 'rate_limit_time_window')} <= ?)`;
      const rows = await db('api_keys')
        .where({ id })
        .andWhere(db.raw(`(remaining is null or remaining > 0 or ${refillDue})`, [now]))
        .andWhere(db.raw(`(not ${limited} or ${windowOver} or request_count < rate_limit_max)`, [now]))
        .update({
          remaining: db.raw(
            `case when remaining is null then null when ${refillDue} then refill_amount - 1 else remaining - 1 end`,
            [now],
          ),
          last_refill_at: db.raw(`case when ${refillDue} then ? else last_refill_at end`, [now, now]),
          request_count: db.raw(`case when ${limited} and ${windowOver} then 1 else request_count + 1 end`, [now]),
          rate_limit_window_start: db.raw(
            `case when ${limited} and ${windowOver} then ? else rate_limit_window_start end`,
            [now, now],
          ),
          last_request: now,
        })
        .returning(['remaining', 'request_count']);
      const row = rows[0] as Row | undefined;
      return row ? { remaining: numberOrNull(row.remaining), requestCount: Number(row.request_count) } : null;
    },

    /** Adds uses counted in memory (keys without limits), never moving lastRequest backwards. */
    async addUsage(id: string, uses: number, lastRequest: Date): Promise<void> {
      await db('api_keys')
        .where({ id })
        .update({
          request_count: db.raw('request_count + ?', [uses]),
          last_request: db.raw('case when last_request is null or last_request < ? then ? else last_request end', [
            lastRequest,
            lastRequest,
          ]),
        });
    },
  };
}
