import type { z } from 'zod';
import type { FieldIssue } from '../../../core/polar-api/errors.js';
import type { CheckoutPublicWire } from '../../../core/checkouts/schemas.js';
import { BILLING_ADDRESS_FIELDS, missingBillingFields } from '../../../core/checkouts/billing-address.js';
import { testCardByNumber } from '../../../core/payments/test-cards.js';
import { parseMajor } from './money.js';

/**
 * The hosted checkout form, as a plain HTML form POST sends it: flat `name=value` pairs. This reads them into the
 * buyer's update (the same shape `PATCH /v1/checkouts/client/{secret}` takes, validated by the same schema after) and
 * maps every error back to the form field it belongs to.
 */

export type FormAction = 'apply' | 'pay' | 'remove_discount';
export type FormValues = Record<string, string>;

export const BILLING_FIELDS = BILLING_ADDRESS_FIELDS;
export const customFieldName = (slug: string) => `cf_${slug}`;
export const billingFieldName = (field: string) => `billing_${field}`;

export interface ReadForm {
  action: FormAction;
  /** Unvalidated buyer update; the route validates it with checkoutUpdatePublicSchema. */
  changes: Record<string, unknown>;
  issues: FieldIssue[];
  cardNumber: string;
  /** The total the buyer saw when pressing Pay, so a changed total is shown before anything is charged. */
  shownTotal: string;
}

/** A custom field attached to the checkout's product, as the product wire embeds it. */
export interface AttachedField {
  required: boolean;
  custom_field: { slug: string; name: string; type: string; properties: Record<string, unknown> };
}

export function attachedFields(checkout: CheckoutPublicWire): AttachedField[] {
  return (checkout.attached_custom_fields ?? []) as AttachedField[];
}

const text = (form: FormValues, name: string): string | null => {
  const value = form[name]?.trim();
  return value ? value : null;
};

export function readForm(form: FormValues, checkout: CheckoutPublicWire): ReadForm {
  const issues: FieldIssue[] = [];
  const changes: Record<string, unknown> = {};
  const action: FormAction = form.action === 'pay' || form.action === 'remove_discount' ? form.action : 'apply';

  const productId = text(form, 'product_id');
  if (productId && productId !== checkout.product_id) changes.product_id = productId;

  const price = checkout.product_price;
  if (price?.amount_type === 'custom' && 'amount' in form && !changes.product_id) {
    const amount = parseMajor(form.amount ?? '', checkout.currency);
    if (amount === null)
      issues.push({ loc: ['body', 'amount'], msg: 'Enter an amount such as 12.50.', type: 'value_error' });
    else changes.amount = amount;
  }

  if (action === 'remove_discount') changes.discount_code = null;
  else if (checkout.allow_discount_codes) {
    // An empty field leaves the discount alone (it may be the merchant's); "Remove" takes a code off.
    const code = text(form, 'discount_code');
    if (code && code.toLowerCase() !== (checkout.discount?.code ?? '').toLowerCase()) changes.discount_code = code;
  }

  if ('customer_email' in form) changes.customer_email = text(form, 'customer_email');
  if ('customer_name' in form) changes.customer_name = text(form, 'customer_name');

  const customData: Record<string, unknown> = {};
  for (const attached of attachedFields(checkout)) {
    const { slug, type } = attached.custom_field;
    const name = customFieldName(slug);
    if (type === 'checkbox') {
      // An unticked box sends nothing; the field is on the form, so absence means false.
      customData[slug] = form[name] !== undefined;
      continue;
    }
    if (!(name in form)) continue;
    const value = text(form, name);
    if (type === 'number' && value !== null) {
      if (/^-?\d{1,10}$/.test(value)) customData[slug] = Number(value);
      else issues.push({ loc: ['body', 'custom_field_data', slug], msg: 'Enter a whole number.', type: 'value_error' });
      continue;
    }
    customData[slug] = value;
  }
  if (Object.keys(customData).length > 0) changes.custom_field_data = customData;

  if (billingFieldName('country') in form) {
    const address = Object.fromEntries(BILLING_FIELDS.map((field) => [field, text(form, billingFieldName(field))]));
    if (address.country) changes.customer_billing_address = address;
    else if (BILLING_FIELDS.some((field) => address[field]))
      issues.push({ loc: ['body', 'customer_billing_address', 'country'], msg: 'Choose a country.', type: 'missing' });
    else changes.customer_billing_address = null;
  }

  return { action, changes, issues, cardNumber: form.card_number ?? '', shownTotal: form.shown_total ?? '' };
}

/** Checks made only when paying: the billing fields confirmation requires (the page marks them), and the card (a sandbox test card number). */
export function payIssues(
  checkout: CheckoutPublicWire,
  cardNumber: string,
): { issues: FieldIssue[]; token: string | null } {
  // The API's own rule (core/checkouts/billing-address.ts), read from the modes the wire states.
  const issues = missingBillingFields(checkout.billing_address_fields, checkout.customer_billing_address);
  if (!checkout.is_payment_form_required) return { issues, token: null };
  if (!cardNumber.trim()) {
    issues.push({ loc: ['body', 'confirmation_token_id'], msg: 'Enter a card number.', type: 'missing' });
    return { issues, token: null };
  }
  const card = testCardByNumber(cardNumber);
  if (!card) {
    issues.push({
      loc: ['body', 'confirmation_token_id'],
      msg: 'This is not a sandbox test card number. Use one of the test cards listed below the field.',
      type: 'value_error',
    });
    return { issues, token: null };
  }
  return { issues, token: card.token };
}

/** Zod's issues for the update, located as the API would locate them (under `body`). */
export function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    loc: ['body', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    msg: issue.message,
    type: issue.code,
  }));
}

/** Which form field an issue belongs to; '' for issues shown at the top of the form. */
export function fieldOf(loc: ReadonlyArray<string | number>): string {
  const [, first, second] = loc;
  switch (first) {
    case 'customer_email':
    case 'customer_name':
    case 'amount':
    case 'discount_code':
      return first;
    case 'discount_id':
      return 'discount_code';
    case 'product_id':
    case 'product_price_id':
      return 'product_id';
    case 'confirmation_token_id':
      return 'card_number';
    case 'custom_field_data':
      return second === undefined ? '' : customFieldName(String(second));
    case 'customer_billing_address':
      return billingFieldName(second === undefined ? 'country' : String(second));
    default:
      return '';
  }
}

export type FieldErrors = Map<string, string[]>;

export function groupIssues(issues: readonly FieldIssue[]): FieldErrors {
  const errors: FieldErrors = new Map();
  for (const issue of issues) {
    const field = fieldOf(issue.loc);
    const message = issue.msg.charAt(0).toUpperCase() + issue.msg.slice(1);
    errors.set(field, [...(errors.get(field) ?? []), message]);
  }
  return errors;
}
