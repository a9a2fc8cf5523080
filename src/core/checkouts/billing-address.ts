import { missingAddressFields, type Address } from '../customers/countries.js';
import type { FieldIssue } from '../polar-api/errors.js';

/**
 * The one rule for what a checkout asks of the buyer's billing address. The wire states it as
 * `billing_address_fields`, the hosted page marks its fields from that, and confirmation refuses what it leaves out,
 * so the page and the API can never disagree.
 *
 * A checkout that takes a payment (or keeps a card) needs the country: tax is set by it, as in Polar, and in the US
 * and Canada by the state and postal code too (missingAddressFields). A free checkout asks for no address unless the
 * merchant requires one; Polar's checkout shows the address only with the payment form.
 */

export type BillingFieldMode = 'required' | 'optional' | 'disabled';
export const BILLING_ADDRESS_FIELDS = ['country', 'line1', 'line2', 'postal_code', 'city', 'state'] as const;
export type BillingAddressField = (typeof BILLING_ADDRESS_FIELDS)[number];
export type BillingAddressModes = Record<BillingAddressField, BillingFieldMode>;

export function billingAddressModes(
  checkout: { requireBillingAddress: boolean; customerBillingAddress: Address | null },
  paymentFormRequired: boolean,
): BillingAddressModes {
  const address = checkout.customerBillingAddress;
  // The fields the chosen country's tax needs, whatever of them is filled in yet.
  const taxFields = new Set<string>(
    address ? missingAddressFields({ ...address, state: null, postal_code: null }) : [],
  );
  const forTax = (field: 'state' | 'postal_code', otherwise: BillingFieldMode): BillingFieldMode =>
    taxFields.has(field) && (paymentFormRequired || checkout.requireBillingAddress) ? 'required' : otherwise;
  if (checkout.requireBillingAddress) {
    return {
      country: 'required',
      state: forTax('state', 'optional'),
      city: 'required',
      postal_code: 'required',
      line1: 'required',
      line2: 'optional',
    };
  }
  return {
    country: paymentFormRequired ? 'required' : 'optional',
    state: forTax('state', 'disabled'),
    city: 'disabled',
    postal_code: forTax('postal_code', 'disabled'),
    line1: 'disabled',
    line2: 'disabled',
  };
}

/** Each field the modes require and the address lacks, located as Polar locates a missing body field. */
export function missingBillingFields(
  modes: BillingAddressModes,
  address: Partial<Record<BillingAddressField, string | null>> | null,
): FieldIssue[] {
  return BILLING_ADDRESS_FIELDS.filter((field) => modes[field] === 'required' && !address?.[field]).map((field) => ({
    loc: ['body', 'customer_billing_address', field],
    msg: 'Field required',
    type: 'missing',
  }));
}
