import { iso, isoOrNull } from '../polar-api/schemas.js';
import type { ProductPrice } from './prices.js';
import type { PriceMeters } from './price-meters.js';
import { priceWire } from './prices.js';
import type { Product } from './repository.js';
import type { ProductWire } from './schemas.js';

/** What a product embeds, read for a whole list at once by loaders.ts. */
export interface ProductParts {
  prices: readonly ProductPrice[];
  /** The meters of its metered prices. */
  meters: PriceMeters;
  benefits: ProductWire['benefits'];
  medias: ProductWire['medias'];
  fields: ProductWire['attached_custom_fields'];
}

/** Polar's Product from the row and what it embeds; `prices` are the live ones. */
export function productWire(product: Product, parts: ProductParts): ProductWire {
  return {
    id: product.id,
    created_at: iso(product.createdAt),
    modified_at: isoOrNull(product.modifiedAt),
    trial_interval: product.trialInterval,
    trial_interval_count: product.trialIntervalCount,
    name: product.name,
    description: product.description,
    visibility: product.visibility,
    recurring_interval: product.recurringInterval,
    recurring_interval_count: product.recurringIntervalCount,
    meter_interval: null,
    meter_interval_count: null,
    is_recurring: product.recurringInterval !== null,
    is_archived: product.isArchived,
    organization_id: product.organizationId,
    metadata: product.metadata,
    prices: parts.prices.map((price) => priceWire(price, parts.meters)),
    benefits: parts.benefits,
    medias: parts.medias,
    attached_custom_fields: parts.fields,
  };
}

/**
 * A product's own fields, without prices, benefits, medias or custom fields: Polar's DiscountProduct (OrderProduct
 * is the same without the meter interval).
 */
export function productOwnFields(product: ProductWire) {
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
