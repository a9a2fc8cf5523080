import { customersRepository, type Customer } from '../customers/repository.js';
import type { CustomerWire } from '../customers/schemas.js';
import { customerWire } from '../customers/wire.js';
import type { Db } from '../database/index.js';
import { discountsRepository } from '../discounts/repository.js';
import type { DiscountBaseWire } from '../discounts/schemas.js';
import { discountBaseWire } from '../discounts/wire.js';
import type { EmbedOptions } from '../products/embedded.js';
import { productWires } from '../products/read.js';
import { productsRepository } from '../products/repository.js';
import type { ProductWire } from '../products/schemas.js';

/**
 * What orders and subscriptions embed (customer, product, discount), loaded in one query per kind for a whole page
 * of rows, so a list costs the same handful of queries whatever its length.
 */
export interface Related {
  customers: Map<string, CustomerWire>;
  products: Map<string, ProductWire>;
  discounts: Map<string, DiscountBaseWire>;
}

export async function loadRelated(
  db: Db,
  ids: { customerIds: Iterable<string>; productIds: Iterable<string | null>; discountIds: Iterable<string | null> },
  options: EmbedOptions,
): Promise<Related> {
  const customerIds = [...new Set(ids.customerIds)];
  const productIds = [...new Set([...ids.productIds].filter((id): id is string => id !== null))];
  const discountIds = [...new Set([...ids.discountIds].filter((id): id is string => id !== null))];
  // Deleted customers still show on their orders (Polar keeps `deleted_at` on the embedded customer).
  const customerRows = (await Promise.all(customerIds.map((id) => customersRepository(db).findAnyById(id)))).filter((customer): customer is Customer => customer !== null);
  const products = productIds.length ? await productWires(db, await productsRepository(db, options.readCache).findByIds(productIds), options) : [];
  const discounts = discountIds.length ? await discountsRepository(db).findByIds(discountIds) : [];
  return {
    customers: new Map(customerRows.map((customer) => [customer.id, customerWire(customer)])),
    products: new Map(products.map((product) => [product.id, product])),
    discounts: new Map(discounts.map((discount) => [discount.id, discountBaseWire(discount)])),
  };
}
