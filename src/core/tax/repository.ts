import type { Db } from '../database/index.js';
import { toDate, toDateOrNull } from '../database/index.js';
import type { ListOptions } from '../kernel/pagination.js';
import { paginate } from '../kernel/pagination.js';

export interface TaxRate {
  id: string;
  organizationId: string;
  country: string;
  /** null: the whole country. */
  state: string | null;
  basisPoints: number;
  name: string;
  createdAt: Date;
  modifiedAt: Date | null;
}

function fromRow(row: Record<string, unknown>): TaxRate {
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    country: String(row.country),
    state: row.state ? String(row.state) : null,
    basisPoints: Number(row.basis_points),
    name: String(row.name),
    createdAt: toDate(row.created_at),
    modifiedAt: toDateOrNull(row.modified_at),
  };
}

export function taxRatesRepository(db: Db) {
  return {
    async insert(rate: TaxRate): Promise<void> {
      await db('tax_rates').insert({
        id: rate.id,
        organization_id: rate.organizationId,
        country: rate.country,
        state: rate.state ?? '',
        basis_points: rate.basisPoints,
        name: rate.name,
        created_at: rate.createdAt,
        modified_at: null,
      });
    },
    async findById(id: string): Promise<TaxRate | null> {
      const row = await db('tax_rates').where({ id }).first();
      return row ? fromRow(row) : null;
    },
    /** The state's rate when one is set, else the country's. */
    async forAddress(organizationId: string, country: string, state: string | null): Promise<TaxRate | null> {
      const rows = await db('tax_rates')
        .where({ organization_id: organizationId, country })
        .whereIn('state', state ? [state, ''] : ['']);
      const rates = rows.map(fromRow);
      return rates.find((rate) => rate.state !== null) ?? rates[0] ?? null;
    },
    async list(organizationIds: string[], filters: { country?: string }, options: ListOptions) {
      const query = db('tax_rates').whereIn('organization_id', organizationIds);
      if (filters.country) query.where('country', filters.country);
      const page = await paginate<Record<string, unknown>>(query, options, {
        created_at: 'created_at',
        country: 'country',
        basis_points: 'basis_points',
      });
      return { items: page.rows.map(fromRow), pagination: page.pagination };
    },
    async update(id: string, changes: { basisPoints?: number; name?: string; modifiedAt: Date }): Promise<void> {
      await db('tax_rates')
        .where({ id })
        .update({
          ...(changes.basisPoints !== undefined ? { basis_points: changes.basisPoints } : {}),
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          modified_at: changes.modifiedAt,
        });
    },
    async delete(id: string): Promise<void> {
      await db('tax_rates').where({ id }).delete();
    },
  };
}
