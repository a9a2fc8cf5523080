import type { Db } from '../database/index.js';
import type { EmbedOptions } from '../products/embedded.js';
import { iso, isoOrNull } from '../polar-api/schemas.js';
import { productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductWire } from '../products/schemas.js';
import type { Discount } from './repository.js';
import { isUuid } from './repository.js';
import type { DiscountBaseWire, DiscountProductWire, DiscountWire } from './schemas.js';

/**
 * How discounts and checkout links read products: the products module's wire shapes by id, archived ones included,
 * unknown ids left out. Injected so these modules depend on what products show, not on their tables.
 */
export interface ProductLookup {
  byIds(db: Db, ids: string[]): Promise<ProductWire[]>;
}

export function discountProductWire(product: ProductWire): DiscountProductWire {
  return {
    metadata: product.metadata,
    id: product.id,
    created_at: product.created_at,
    modified_at: product.modified_at,
    trial_interval: product.trial_interval,
    trial_interval_count: product.trial_interval_count,
    name: product.name,
    description: product.description,
    visibility: product.visibility,
    recurring_interval: product.recurring_interval,
    recurring_interval_count: product.recurring_interval_count,
    meter_interval: product.meter_interval,
    meter_interval_count: product.meter_interval_count,
    is_recurring: product.is_recurring,
    is_archived: product.is_archived,
    organization_id: product.organization_id,
  };
}

/** A discount as Polar's `Discount…Base` (no products): what checkouts and checkout links embed. */
export function discountBaseWire(discount: Discount): DiscountBaseWire {
  const base = {
    created_at: iso(discount.createdAt),
    modified_at: isoOrNull(discount.modifiedAt),
    id: discount.id,
    metadata: discount.metadata,
    name: discount.name,
    code: discount.code,
    starts_at: isoOrNull(discount.startsAt),
    ends_at: isoOrNull(discount.endsAt),
    max_redemptions: discount.maxRedemptions,
    // Per-customer limits need customers, which Till does not have yet; Polar answers null when none is set.
    max_redemptions_per_customer: null,
    redemptions_count: discount.redemptionsCount,
    organization_id: discount.organizationId,
  };
  const kind =
    discount.type === 'fixed'
      ? { type: 'fixed' as const, amount: discount.amount ?? 0, currency: discount.currency ?? 'usd', amounts: discount.amounts ?? {} }
      : { type: 'percentage' as const, basis_points: discount.basisPoints ?? 0 };
  const duration =
    discount.duration === 'repeating'
      ? { duration: 'repeating' as const, duration_in_months: discount.durationInMonths ?? 1 }
      : { duration: discount.duration };
  return { ...base, ...kind, ...duration } as DiscountBaseWire;
}

export function discountWire(discount: Discount, products: Map<string, ProductWire>): DiscountWire {
  const restricted = discount.productIds.flatMap((id) => {
    const product = products.get(id);
    return product ? [discountProductWire(product)] : [];
  });
  return { ...discountBaseWire(discount), products: restricted } as DiscountWire;
}

/** Wires for several discounts with one product lookup. */
export async function discountWires(db: Db, lookup: ProductLookup, discounts: Discount[]): Promise<DiscountWire[]> {
  const ids = [...new Set(discounts.flatMap((discount) => discount.productIds))];
  const products = new Map((ids.length > 0 ? await lookup.byIds(db, ids) : []).map((product) => [product.id, product]));
  return discounts.map((discount) => discountWire(discount, products));
}

/** The lookup over the products module's own reads. */
export function productLookup(options: EmbedOptions): ProductLookup {
  return {
    async byIds(db, ids) {
      const valid = ids.filter(isUuid);
      return valid.length > 0 ? productWires(db, await productsRepository(db, options.readCache).findByIds(valid), options) : [];
    },
  };
}
