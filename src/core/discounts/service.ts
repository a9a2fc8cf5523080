import { randomUUID } from 'node:crypto';
import { fieldError, resourceNotFound, validationError } from '../polar-api/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Db } from '../database/index.js';
import { transaction, isUniqueViolation } from '../database/index.js';
import type { ListOptions, Page } from '../kernel/pagination.js';
import type { MerchantActor } from '../polar-api/actor.js';
import { authorize, organizationFilter, organizationForCreate } from '../polar-api/actor.js';
import type { Discount, DiscountChanges } from './repository.js';
import { discountsRepository } from './repository.js';
import type { DiscountCreateInput, DiscountUpdateInput, DiscountWire } from './schemas.js';
import type { ProductLookup } from './loaders.js';
import { loadDiscountWires } from './loaders.js';

const DUPLICATE_CODE = 'Discount with this code already exists.';
const REDEEMED = 'This field cannot be changed because the discount has already been redeemed.';

/**
 * The amounts of a fixed discount: `amounts` as given, with `amount` added in `currency`. The primary currency (the
 * deprecated `amount`/`currency` pair Polar still shows) is the one named, else usd when present, else the first.
 */
function fixedAmounts(
  input: { amount?: number | null; currency?: string | null; amounts?: Record<string, number> | null },
  fallbackCurrency: string,
) {
  const amounts: Record<string, number> = { ...(input.amounts ?? {}) };
  const named = input.currency ?? (input.amount != null ? fallbackCurrency : null);
  if (input.amount != null) amounts[named!] = input.amount;
  const currency =
    named && amounts[named] !== undefined ? named : 'usd' in amounts ? 'usd' : Object.keys(amounts).sort()[0]!;
  return { amounts, currency, amount: amounts[currency]! };
}

export function createDiscountService(deps: { db: Db; clock: Clock; products: ProductLookup }) {
  const { db, clock, products } = deps;

  async function owned(actor: MerchantActor, id: string, mode: 'read' | 'write'): Promise<Discount> {
    const discount = await discountsRepository(db).findById(id);
    if (!discount) throw resourceNotFound();
    authorize(actor, discount.organizationId, mode);
    return discount;
  }

  /** Product restrictions must name the organization's own products; anything else is "not found", as in Polar. */
  async function checkProducts(trx: Db, organizationId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = new Map((await products.byIds(trx, unique)).map((product) => [product.id, product]));
    ids.forEach((id, index) => {
      if (found.get(id)?.organization_id !== organizationId)
        throw fieldError(['body', 'products', index], 'Product not found.');
    });
    return unique;
  }

  async function checkCodeFree(trx: Db, organizationId: string, code: string, except?: string): Promise<void> {
    const existing = await discountsRepository(trx).findByCode(organizationId, code);
    if (existing && existing.id !== except) throw fieldError(['body', 'code'], DUPLICATE_CODE);
  }

  /** Two requests with the same new code can both pass the read check; the unique index decides, and says why. */
  async function writing<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await transaction(db, fn);
    } catch (error) {
      if (isUniqueViolation(error)) throw fieldError(['body', 'code'], DUPLICATE_CODE);
      throw error;
    }
  }

  async function wire(trx: Db, discount: Discount): Promise<DiscountWire> {
    return (await loadDiscountWires(trx, products, [discount]))[0]!;
  }

  return {
    async create(actor: MerchantActor, input: DiscountCreateInput): Promise<DiscountWire> {
      const organizationId = organizationForCreate(actor, input.organization_id);
      const now = clock.now();
      return writing(async (trx) => {
        const productIds = await checkProducts(trx, organizationId, input.products ?? []);
        if (input.code) await checkCodeFree(trx, organizationId, input.code);
        const fixed = input.type === 'fixed' ? fixedAmounts(input, 'usd') : null;
        const discount: Discount = {
          id: randomUUID(),
          organizationId,
          name: input.name,
          type: input.type,
          amount: fixed?.amount ?? null,
          currency: fixed?.currency ?? null,
          amounts: fixed?.amounts ?? null,
          basisPoints: input.type === 'percentage' ? input.basis_points : null,
          duration: input.duration,
          // Months mean nothing to a once or forever discount, so they are not kept.
          durationInMonths: input.duration === 'repeating' ? input.duration_in_months! : null,
          code: input.code ?? null,
          startsAt: input.starts_at ?? null,
          endsAt: input.ends_at ?? null,
          maxRedemptions: input.max_redemptions ?? null,
          redemptionsCount: 0,
          metadata: input.metadata ?? {},
          productIds,
          createdAt: now,
          modifiedAt: null,
          deletedAt: null,
        };
        await discountsRepository(trx).insert(discount);
        return wire(trx, discount);
      });
    },

    async get(actor: MerchantActor, id: string): Promise<DiscountWire> {
      return wire(db, await owned(actor, id, 'read'));
    },

    async list(
      actor: MerchantActor,
      query: ListOptions & { organization_id?: string[]; query?: string },
    ): Promise<Page<DiscountWire>> {
      const page = await discountsRepository(db).list(
        organizationFilter(actor, query.organization_id),
        { query: query.query },
        query,
      );
      return { items: await loadDiscountWires(db, products, page.items), pagination: page.pagination };
    },

    async update(actor: MerchantActor, id: string, input: DiscountUpdateInput): Promise<DiscountWire> {
      const current = await owned(actor, id, 'write');
      const changes = updateChanges(current, input, clock.now());
      return writing(async (trx) => {
        const repo = discountsRepository(trx);
        if (changes.code) await checkCodeFree(trx, current.organizationId, changes.code, current.id);
        let productIds = current.productIds;
        if (input.products != null) {
          productIds = await checkProducts(trx, current.organizationId, input.products);
          await repo.setProducts(current.id, productIds);
        }
        await repo.update(current.id, changes);
        return wire(trx, { ...current, ...changes, productIds });
      });
    },

    async delete(actor: MerchantActor, id: string): Promise<void> {
      const discount = await owned(actor, id, 'write');
      await transaction(db, (trx) => discountsRepository(trx).softDelete(discount.id, clock.now()));
    },
  };
}

/**
 * Polar's update rules: type and duration never change; amounts (fixed) and basis points (percentage) are frozen
 * once the discount has been redeemed; a field of the other type is refused rather than silently ignored.
 * `null` clears the optional fields (code, dates, limit) and leaves the required ones as they are.
 */
function updateChanges(current: Discount, input: DiscountUpdateInput, now: Date): DiscountChanges {
  if (input.type != null && input.type !== current.type) throw fieldError(['body', 'type'], 'Type cannot be changed.');
  if (input.duration != null && input.duration !== current.duration)
    throw fieldError(['body', 'duration'], 'Duration cannot be changed.');
  if (input.duration_in_months != null && current.duration !== 'repeating') {
    throw fieldError(['body', 'duration_in_months'], 'duration_in_months applies only to repeating discounts.');
  }
  const otherType =
    current.type === 'fixed' ? (['basis_points'] as const) : (['amount', 'currency', 'amounts'] as const);
  for (const field of otherType) {
    if (input[field] != null)
      throw fieldError(['body', field], `${field} does not apply to a ${current.type} discount.`);
  }

  const changes: DiscountChanges = { modifiedAt: now };
  if (input.name != null) changes.name = input.name;
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  if (input.duration_in_months != null) changes.durationInMonths = input.duration_in_months;
  if (input.code !== undefined) changes.code = input.code;
  if (input.starts_at !== undefined) changes.startsAt = input.starts_at;
  if (input.ends_at !== undefined) changes.endsAt = input.ends_at;
  if (input.max_redemptions !== undefined) changes.maxRedemptions = input.max_redemptions;

  const startsAt = changes.startsAt !== undefined ? changes.startsAt : current.startsAt;
  const endsAt = changes.endsAt !== undefined ? changes.endsAt : current.endsAt;
  if (startsAt && endsAt && startsAt >= endsAt)
    throw fieldError(['body', 'ends_at'], 'starts_at must be before ends_at');

  if (current.type === 'percentage' && input.basis_points != null && input.basis_points !== current.basisPoints) {
    if (current.redemptionsCount > 0) throw fieldError(['body', 'basis_points'], REDEEMED);
    changes.basisPoints = input.basis_points;
  }
  if (current.type === 'fixed' && (input.amount != null || input.amounts != null || input.currency != null)) {
    const next =
      input.amount == null && input.amounts == null
        ? fixedAmounts({ amounts: current.amounts, currency: input.currency }, current.currency ?? 'usd')
        : fixedAmounts(
            {
              amount: input.amount,
              currency: input.currency,
              amounts: input.amounts ?? (input.amount != null ? {} : current.amounts),
            },
            current.currency ?? 'usd',
          );
    if (input.currency != null && next.currency !== input.currency) {
      throw fieldError(
        ['body', 'currency'],
        'The discount has no amount in this currency; give amount or amounts too.',
      );
    }
    const changed =
      next.currency !== current.currency ||
      JSON.stringify(sorted(next.amounts)) !== JSON.stringify(sorted(current.amounts ?? {}));
    if (changed) {
      if (current.redemptionsCount > 0) {
        const field = input.amounts != null ? 'amounts' : input.amount != null ? 'amount' : 'currency';
        throw validationError([{ loc: ['body', field], msg: REDEEMED, type: 'value_error' }]);
      }
      Object.assign(changes, next);
    }
  }
  return changes;
}

function sorted(amounts: Record<string, number>): Array<[string, number]> {
  return Object.entries(amounts).sort(([a], [b]) => a.localeCompare(b));
}

export type DiscountService = ReturnType<typeof createDiscountService>;
