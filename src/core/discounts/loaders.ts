import type { EmbedOptions } from '../products/embedded.js';
import type { Db } from '../database/index.js';
import { productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductWire } from '../products/schemas.js';
import type { Discount } from './repository.js';
import { isUuid } from './repository.js';
import type { DiscountWire } from './schemas.js';
import { discountWire } from './wire.js';

/**
 * How discounts and checkout links read products: the products module's wire shapes by id, archived ones included,
 * unknown ids left out. Injected so these modules depend on what products show, not on their tables.
 */
export interface ProductLookup {
  byIds(db: Db, ids: string[]): Promise<ProductWire[]>;
}

/** Wires for several discounts with one product lookup. */
export async function loadDiscountWires(db: Db, lookup: ProductLookup, discounts: Discount[]): Promise<DiscountWire[]> {
  const ids = [...new Set(discounts.flatMap((discount) => discount.productIds))];
  const products = new Map((ids.length > 0 ? await lookup.byIds(db, ids) : []).map((product) => [product.id, product]));
  return discounts.map((discount) => discountWire(discount, products));
}

/** The lookup over the products module's own reads. */
export function productLookup(options: EmbedOptions): ProductLookup {
  return {
    async byIds(db, ids) {
      const valid = ids.filter(isUuid);
      return valid.length > 0
        ? productWires(db, await productsRepository(db, options.readCache).findByIds(valid), options)
        : [];
    },
  };
}
