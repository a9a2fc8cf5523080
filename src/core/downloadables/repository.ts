import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

/** One file a grant of a downloadables benefit hands its customer (Polar's Downloadable). */
export interface Downloadable {
  id: string;
  organizationId: string;
  grantId: string;
  customerId: string;
  benefitId: string;
  fileId: string;
  revokedAt: Date | null;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): Downloadable {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    grantId: String(row.grant_id),
    customerId: String(row.customer_id),
    benefitId: String(row.benefit_id),
    fileId: String(row.file_id),
    revokedAt: toDateOrNull(row.revoked_at),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

const COLUMNS = [
  'downloadables.id',
  'downloadables.organization_id',
  'downloadables.grant_id',
  'downloadables.customer_id',
  'downloadables.benefit_id',
  'downloadables.file_id',
  'downloadables.revoked_at',
  'downloadables.created_at',
  'downloadables.modified_at',
];

export function downloadablesRepository(db: Db) {
  return {
    async forGrant(grantId: string): Promise<Downloadable[]> {
      return (await db('downloadables').where({ grant_id: grantId }).orderBy('created_at')).map(fromRow);
    },

    async insert(downloadable: Downloadable): Promise<void> {
      await db('downloadables').insert({
        id: downloadable.id,
        organization_id: downloadable.organizationId,
        grant_id: downloadable.grantId,
        customer_id: downloadable.customerId,
        benefit_id: downloadable.benefitId,
        file_id: downloadable.fileId,
        revoked_at: downloadable.revokedAt,
        created_at: downloadable.createdAt,
        modified_at: downloadable.modifiedAt,
      });
    },

    async setRevoked(ids: readonly string[], revokedAt: Date | null, at: Date): Promise<void> {
      if (ids.length === 0) return;
      await db('downloadables')
        .whereIn('id', [...ids])
        .update({ revoked_at: revokedAt, modified_at: at });
    },

    async findById(id: string): Promise<Downloadable | null> {
      const row = await db('downloadables').where({ id }).first();
      return row ? fromRow(row) : null;
    },

    /** The customer's downloadables in force: not revoked, of a grant in force, of a file not deleted. */
    async listLive(customerId: string, benefitIds: string[] | undefined, options: ListOptions) {
      const query = db('downloadables')
        .join('benefit_grants', 'benefit_grants.id', 'downloadables.grant_id')
        .join('files', 'files.id', 'downloadables.file_id')
        .where('downloadables.customer_id', customerId)
        .whereNull('downloadables.revoked_at')
        .whereNotNull('benefit_grants.granted_at')
        .whereNull('benefit_grants.revoked_at')
        .whereNull('files.deleted_at')
        .select(COLUMNS);
      if (benefitIds?.length) query.whereIn('downloadables.benefit_id', benefitIds);
      const page = await paginate<Record<string, unknown>>(
        query,
        options,
        { created_at: 'downloadables.created_at' },
        'downloadables.id',
      );
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
  };
}
