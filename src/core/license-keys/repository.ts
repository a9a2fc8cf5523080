import type { Db, Deferred } from '../database/index.js';
import { customerFromRow, type Customer } from '../customers/repository.js';
import { dialect, parseJson, rawRows, toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

import type { LicenseKeyStatus } from './schemas.js';

export type ActivationValues = Record<string, string | number | boolean>;

export interface LicenseKey {
  id: string;
  organizationId: string;
  customerId: string;
  benefitId: string;
  keyDigest: string;
  keySealed: string;
  displayKey: string;
  status: LicenseKeyStatus;
  limitActivations: number | null;
  activations: number;
  usage: number;
  limitUsage: number | null;
  validations: number;
  lastValidatedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface LicenseKeyActivation {
  id: string;
  licenseKeyId: string;
  label: string;
  meta: ActivationValues;
  conditions: ActivationValues;
  createdAt: Date;
  modifiedAt: Date | null;
}

export interface LicenseKeyFilter {
  organizationIds: string[];
  customerIds?: string[];
  benefitIds?: string[];
}

function fromRow(row: Record<string, unknown>): LicenseKey {
  const limit = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    customerId: String(row.customer_id),
    benefitId: String(row.benefit_id),
    keyDigest: String(row.key_digest),
    keySealed: String(row.key_sealed),
    displayKey: String(row.display_key),
    status: String(row.status) as LicenseKeyStatus,
    limitActivations: limit(row.limit_activations),
    activations: Number(row.activations),
    usage: Number(row.usage),
    limitUsage: limit(row.limit_usage),
    validations: Number(row.validations),
    lastValidatedAt: toDateOrNull(row.last_validated_at),
    expiresAt: toDateOrNull(row.expires_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

const KEY_COLUMNS = [
  'id',
  'organization_id',
  'customer_id',
  'benefit_id',
  'key_digest',
  'key_sealed',
  'display_key',
  'status',
  'limit_activations',
  'activations',
  'usage',
  'limit_usage',
  'validations',
  'last_validated_at',
  'expires_at',
  'created_at',
  'modified_at',
] as const;
// The key's columns under this prefix beside the customer's own in one joined row.
const KEY_PREFIX = 'key__';

/**
 * The validation's read, compiled once per dialect: it runs on every public validation, where building and compiling
 * the query each time cost more than the database's own work.
 */
const validationReads = new Map<string, string>();
function validationReadSql(db: Db, count: number): string {
  const which = `${dialect(db)}:${count}`;
  let sql = validationReads.get(which);
  if (!sql) {
    sql = db('license_keys')
      .join('customers', 'customers.id', 'license_keys.customer_id')
      .where('license_keys.organization_id', '')
      .whereIn('license_keys.key_digest', new Array<string>(count).fill(''))
      .select('customers.*', ...KEY_COLUMNS.map((column) => `license_keys.${column} as ${KEY_PREFIX}${column}`))
      .toSQL().sql;
    validationReads.set(which, sql);
  }
  return sql;
}
const COUNT_VALIDATION_SQL =
  'UPDATE license_keys SET validations = validations + 1, last_validated_at = ? WHERE id = ?';

function activationFromRow(row: Record<string, unknown>): LicenseKeyActivation {
  return {
    id: String(row.id),
    licenseKeyId: String(row.license_key_id),
    label: String(row.label),
    meta: parseJson<ActivationValues>(row.meta) ?? {},
    conditions: parseJson<ActivationValues>(row.conditions) ?? {},
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function licenseKeysRepository(db: Db) {
  return {
    async insert(key: LicenseKey): Promise<void> {
      await db('license_keys').insert({
        id: key.id,
        organization_id: key.organizationId,
        customer_id: key.customerId,
        benefit_id: key.benefitId,
        key_digest: key.keyDigest,
        key_sealed: key.keySealed,
        display_key: key.displayKey,
        status: key.status,
        limit_activations: key.limitActivations,
        activations: key.activations,
        usage: key.usage,
        limit_usage: key.limitUsage,
        validations: key.validations,
        last_validated_at: key.lastValidatedAt,
        expires_at: key.expiresAt,
        created_at: key.createdAt,
        modified_at: key.modifiedAt,
      });
    },

    async findById(id: string): Promise<LicenseKey | null> {
      const row = await db('license_keys').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    async findByDigest(organizationId: string, digest: string): Promise<LicenseKey | null> {
      const row = await db('license_keys').where({ organization_id: organizationId, key_digest: digest }).first();
      return row ? fromRow(row) : null;
    },

    /**
     * Keys that public calls name, each with its customer, in one read (a validation's only read): by digest, within
     * one organization.
     */
    async findByDigestsWithCustomer(
      organizationId: string,
      digests: readonly string[],
    ): Promise<Map<string, { key: LicenseKey; customer: Customer }>> {
      const found = new Map<string, { key: LicenseKey; customer: Customer }>();
      if (digests.length === 0) return found;
      for (const row of rawRows(await db.raw(validationReadSql(db, digests.length), [organizationId, ...digests]))) {
        const key: Record<string, unknown> = {};
        for (const column of KEY_COLUMNS) key[column] = row[`${KEY_PREFIX}${column}`];
        found.set(String(key.key_digest), { key: fromRow(key), customer: customerFromRow(row) });
      }
      return found;
    },

    async list(filter: LicenseKeyFilter, options: ListOptions) {
      const query = db('license_keys').whereIn('organization_id', filter.organizationIds);
      if (filter.customerIds?.length) query.whereIn('customer_id', filter.customerIds);
      if (filter.benefitIds?.length) query.whereIn('benefit_id', filter.benefitIds);
      const page = await paginate<Record<string, unknown>>(query, options, { created_at: 'created_at' });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },

    async update(
      id: string,
      changes: Partial<
        Pick<LicenseKey, 'status' | 'usage' | 'limitActivations' | 'limitUsage' | 'expiresAt'> & { modifiedAt: Date }
      >,
    ): Promise<void> {
      const columns: Record<string, unknown> = {};
      if (changes.status !== undefined) columns.status = changes.status;
      if (changes.usage !== undefined) columns.usage = changes.usage;
      if (changes.limitActivations !== undefined) columns.limit_activations = changes.limitActivations;
      if (changes.limitUsage !== undefined) columns.limit_usage = changes.limitUsage;
      if (changes.expiresAt !== undefined) columns.expires_at = changes.expiresAt;
      if (changes.modifiedAt !== undefined) columns.modified_at = changes.modifiedAt;
      if (Object.keys(columns).length > 0) await db('license_keys').where({ id }).update(columns);
    },

    /**
     * Counts a validation and adds `increment` to the usage in one conditional UPDATE: the usage never passes the
     * limit, however many validations race (PostgreSQL re-checks the condition on the row it waited for; SQLite
     * has one writer). Answers the key as it now is, or null when the limit would have been passed.
     */
    async markValidated(
      id: string,
      increment: number,
      at: Date,
    ): Promise<{ usage: number; validations: number } | null> {
      const query = db('license_keys')
        .where({ id })
        .update({
          validations: db.raw('validations + 1'),
          usage: db.raw('usage + ?', [increment]),
          last_validated_at: at,
        });
      if (increment > 0)
        query.where((q) => {
          q.whereNull('limit_usage').orWhereRaw('usage + ? <= limit_usage', [increment]);
        });
      const rows = (await query.returning(['usage', 'validations'])) as Array<{ usage: number; validations: number }>;
      const row = rows[0];
      return row ? { usage: Number(row.usage), validations: Number(row.validations) } : null;
    },

    /**
     * Counts a validation that adds no usage: nothing is conditional and no answer is read, so it can go in a
     * write-only transaction, committed with other validations' (the answer counts from the key as read).
     */
    deferCountValidation(id: string, at: Date): Deferred {
      return db.raw(COUNT_VALIDATION_SQL, [at, id]);
    },

    /** Takes one activation slot if the limit leaves one (same guarantee as markValidated). */
    async takeActivationSlot(id: string, at: Date): Promise<boolean> {
      const count = await db('license_keys')
        .where({ id })
        .whereNotNull('limit_activations')
        .whereRaw('activations < limit_activations')
        .update({ activations: db.raw('activations + 1'), modified_at: at });
      return Number(count) === 1;
    },

    async releaseActivationSlot(id: string, at: Date): Promise<void> {
      await db('license_keys')
        .where({ id })
        .where('activations', '>', 0)
        .update({ activations: db.raw('activations - 1'), modified_at: at });
    },

    async insertActivation(activation: LicenseKeyActivation): Promise<void> {
      await db('license_key_activations').insert({
        id: activation.id,
        license_key_id: activation.licenseKeyId,
        label: activation.label,
        meta: JSON.stringify(activation.meta),
        conditions: JSON.stringify(activation.conditions),
        created_at: activation.createdAt,
        modified_at: activation.modifiedAt,
      });
    },

    async findActivation(licenseKeyId: string, activationId: string): Promise<LicenseKeyActivation | null> {
      const row = await db('license_key_activations').where({ id: activationId, license_key_id: licenseKeyId }).first();
      return row ? activationFromRow(row) : null;
    },

    /** Deletes one activation; answers whether it existed (two deactivations of one activation free one slot). */
    async deleteActivation(licenseKeyId: string, activationId: string): Promise<boolean> {
      const count = await db('license_key_activations')
        .where({ id: activationId, license_key_id: licenseKeyId })
        .delete();
      return Number(count) === 1;
    },

    async activationsOf(licenseKeyIds: readonly string[]): Promise<LicenseKeyActivation[]> {
      if (licenseKeyIds.length === 0) return [];
      return (
        await db('license_key_activations')
          .whereIn('license_key_id', [...licenseKeyIds])
          .orderBy('created_at')
      ).map(activationFromRow);
    },

    /** PostgreSQL: holds the key's row for the rest of the transaction (SQLite's one writer already does). */
    async lock(id: string): Promise<void> {
      if (dialect(db) === 'postgres') await db('license_keys').where({ id }).forUpdate().first('id');
    },
  };
}
