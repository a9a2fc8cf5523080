import { randomUUID } from 'node:crypto';
import { fieldError, resourceNotFound } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { isUniqueViolation } from '../database/index.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { TaxRate } from './repository.js';
import { taxRatesRepository } from './repository.js';
import type { TaxRateWire } from './schemas.js';

export function taxRateWire(rate: TaxRate): TaxRateWire {
  return {
    id: rate.id,
    created_at: iso(rate.createdAt),
    modified_at: isoOrNull(rate.modifiedAt),
    organization_id: rate.organizationId,
    country: rate.country,
    state: rate.state,
    basis_points: rate.basisPoints,
    name: rate.name,
  };
}

/** The rate in basis points that applies to a buyer's address; 0 when the organization has none for it. */
export async function taxBasisPointsFor(
  db: Db,
  organizationId: string,
  address: { country?: string | null; state?: string | null } | null,
): Promise<number> {
  if (!address?.country) return 0;
  const state = address.state ? address.state.replace(new RegExp(`^${address.country}-`), '') : null;
  const rate = await taxRatesRepository(db).forAddress(organizationId, address.country.toUpperCase(), state);
  return rate?.basisPoints ?? 0;
}

export function createTaxService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const repo = taxRatesRepository(db);

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<TaxRate> {
    const rate = await repo.findById(id);
    if (!rate) throw resourceNotFound();
    authorize(actor, rate.organizationId, mode);
    return rate;
  }

  return {
    async create(
      actor: MerchantActor,
      input: {
        organization_id?: string | null;
        country: string;
        state?: string | null;
        basis_points: number;
        name: string;
      },
    ): Promise<TaxRateWire> {
      const rate: TaxRate = {
        id: randomUUID(),
        organizationId: organizationForCreate(actor, input.organization_id),
        country: input.country,
        state: input.state ?? null,
        basisPoints: input.basis_points,
        name: input.name,
        createdAt: clock.now(),
        modifiedAt: null,
      };
      try {
        await repo.insert(rate);
      } catch (error) {
        if (isUniqueViolation(error))
          throw fieldError(
            ['body', 'country'],
            'A tax rate for this country and state already exists; update it instead.',
          );
        throw error;
      }
      return taxRateWire(rate);
    },
    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[]; country?: string },
    ): Promise<Page<TaxRateWire>> {
      const page = await repo.list(organizationFilter(actor, query.organization_id), { country: query.country }, query);
      return { items: page.items.map(taxRateWire), pagination: page.pagination };
    },
    async get(actor: MerchantActor, id: string): Promise<TaxRateWire> {
      return taxRateWire(await owned(actor, id, 'read'));
    },
    async update(
      actor: MerchantActor,
      id: string,
      input: { basis_points?: number; name?: string },
    ): Promise<TaxRateWire> {
      const rate = await owned(actor, id, 'write');
      const changes = { basisPoints: input.basis_points, name: input.name, modifiedAt: clock.now() };
      await repo.update(rate.id, changes);
      return taxRateWire({
        ...rate,
        basisPoints: input.basis_points ?? rate.basisPoints,
        name: input.name ?? rate.name,
        modifiedAt: changes.modifiedAt,
      });
    },
    async delete(actor: MerchantActor, id: string): Promise<void> {
      const rate = await owned(actor, id, 'write');
      await repo.delete(rate.id);
    },
  };
}

export type TaxService = ReturnType<typeof createTaxService>;
