import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductWire } from '../products/schemas.js';
import { productOwnFields } from '../products/wire.js';
import type { Discount } from './repository.js';
import type { DiscountBaseWire, DiscountProductWire, DiscountWire } from './schemas.js';

export function discountProductWire(product: ProductWire): DiscountProductWire {
  return productOwnFields(product);
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
      ? {
          type: 'fixed' as const,
          amount: discount.amount ?? 0,
          currency: discount.currency ?? 'usd',
          amounts: discount.amounts ?? {},
        }
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
