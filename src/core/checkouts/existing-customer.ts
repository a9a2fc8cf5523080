import type { Db } from '../database/index.js';
import { customersRepository, type Customer } from '../customers/repository.js';
import { DomainError } from '../kernel/errors.js';
import { fieldError } from '../polar-api/errors.js';
import type { Checkout } from './repository.js';
import type { CheckoutCreateInput } from './schemas.js';

/**
 * A checkout created for a customer the merchant already has, as Polar does it: `customer_id` names them (and must),
 * else an `external_customer_id` that matches a live customer links them; an external id nobody has yet is kept on
 * the checkout, and the purchase creates that customer.
 */
export async function existingCustomerFor(
  db: Db,
  input: Pick<CheckoutCreateInput, 'customer_id' | 'external_customer_id'>,
  organizationId: string,
): Promise<Customer | null> {
  const customers = customersRepository(db);
  if (input.customer_id) {
    const customer = await customers.findById(input.customer_id);
    if (!customer || customer.organizationId !== organizationId)
      throw fieldError(['body', 'customer_id'], 'Customer does not exist.');
    return customer;
  }
  if (input.external_customer_id) return customers.findByExternalId([organizationId], input.external_customer_id);
  return null;
}

/** The customer fields Polar copies from a linked customer into the checkout wherever the merchant gave none. */
const PREFILLED = ['customer_email', 'customer_name', 'customer_billing_address', 'customer_tax_id'] as const;

/**
 * The draft for a linked customer: their e-mail, name, billing address and tax id, so the buyer need not type them
 * again and the checkout can be confirmed as it is. What the merchant sends still wins; a null they send counts as
 * not sent (Polar fills every field still None), so it is taken out of `changes`.
 */
export function prefillFromCustomer<C extends Partial<Record<(typeof PREFILLED)[number], unknown>>>(
  draft: Checkout,
  customer: Customer | null,
  changes: C,
): { draft: Checkout; changes: C } {
  if (!customer) return { draft, changes };
  const kept = { ...changes };
  for (const field of PREFILLED) if (kept[field] === null) delete kept[field];
  return {
    draft: {
      ...draft,
      customerId: customer.id,
      customerEmail: customer.email,
      customerName: customer.name,
      customerBillingAddress: customer.billingAddress,
      customerTaxId: customer.taxId?.[0] ?? null,
    },
    changes: kept,
  };
}

/** Polar's answer when the checkout's customer was deleted after the checkout was made for them. */
export function customerDeleted(): DomainError {
  return new DomainError(
    409,
    'CheckoutCustomerDeleted',
    'The customer associated with this checkout has been deleted.',
  );
}
