import { z } from 'zod';
import type { CoreContext } from '../../../core/context.js';
import type { CustomerActor } from '../../../core/customers/sessions.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { testCardByNumber } from '../../../core/payments/test-cards.js';

/**
 * The portal's form actions. Each calls the same service as the matching `/v1/customer-portal` call, as the signed-in
 * customer, so the page can do nothing the customer portal API refuses; their refusals are shown on the page.
 */

export type PortalForm = Record<string, string>;

/** Where the browser goes after an action that worked: back to the portal with a notice, or to a document. */
export type ActionResult = { notice: NoticeCode } | { location: string };

/** The notices a redirect may carry, by code: the URL never carries free text someone else could write. */
export const NOTICES = {
  canceled: 'Your subscription will end at the end of the current period. You keep your benefits until then.',
  uncanceled: 'Your subscription continues: it will renew as usual.',
  plan_changed: 'Your plan was changed.',
  card_saved: 'Your card was saved and is now your default payment method.',
  default_card: 'Your default payment method was changed.',
  deactivated: 'The activation was removed.',
} as const;
export type NoticeCode = keyof typeof NOTICES;

const uuid = z.uuid();

function id(form: PortalForm, name: string): string {
  const value = form[name] ?? '';
  if (!uuid.safeParse(value).success) throw new DomainError(404, 'ResourceNotFound', 'Not found.');
  return value;
}

export async function runAction(
  core: CoreContext,
  actor: CustomerActor,
  form: PortalForm,
  portal: { base: string; url: string },
): Promise<ActionResult> {
  switch (form.action) {
    case 'cancel':
      await core.customerPortal.updateSubscription(actor, id(form, 'subscription_id'), { cancel_at_period_end: true });
      return { notice: 'canceled' };
    case 'uncancel':
      await core.customerPortal.updateSubscription(actor, id(form, 'subscription_id'), {
        cancel_at_period_end: false,
      });
      return { notice: 'uncanceled' };
    case 'change_plan': {
      const subscriptionId = id(form, 'subscription_id');
      if (!form.product_id) throw new DomainError(422, 'ValidationError', 'Choose the plan to change to.');
      await core.subscriptionChanges.updateForCustomer(actor, subscriptionId, { product_id: id(form, 'product_id') });
      return { notice: 'plan_changed' };
    }
    case 'add_card': {
      const card = testCardByNumber(form.card_number ?? '');
      if (!card)
        throw new DomainError(
          422,
          'ValidationError',
          'This is not a sandbox test card number. Use one of the test cards listed under the field.',
        );
      await core.paymentMethods.add(actor, {
        confirmation_token_id: card.token,
        set_default: true,
        return_url: portal.url,
      });
      return { notice: 'card_saved' };
    }
    case 'default_card':
      await core.customerSessions.updatePortalCustomer(actor, {
        default_payment_method_id: id(form, 'payment_method_id'),
      });
      return { notice: 'default_card' };
    case 'deactivate': {
      const key = await core.licenseKeys.getForCustomer(actor, id(form, 'license_key_id'));
      await core.licenseKeys.deactivate({
        key: key.key,
        organization_id: key.organization_id,
        activation_id: id(form, 'activation_id'),
      });
      return { notice: 'deactivated' };
    }
    case 'invoice': {
      const orderId = id(form, 'order_id');
      const order = await core.customerPortal.getOrder(actor, orderId);
      if (!order.is_invoice_generated) await core.orderDocuments.customer.generateInvoice(actor, orderId);
      return { location: `${portal.base}/orders/${orderId}/invoice` };
    }
    default:
      throw new DomainError(400, 'BadRequest', 'This form does not say what to do. Reload the portal and try again.');
  }
}

/** Refusals whose API message speaks to the merchant's developer (it names a merchant route), said to the customer. */
const CUSTOMER_WORDING: Record<string, string> = {
  MissingInvoiceBillingDetails:
    'An invoice needs a billing name and address on the order. Contact the seller to have them added.',
};

/** A refusal as the customer reads it: the message, or for a validation error the messages of its fields. */
export function refusalText(error: DomainError): string {
  const worded = error.code ? CUSTOMER_WORDING[error.code] : undefined;
  if (worded) return worded;
  const details = Array.isArray(error.details) ? (error.details as Array<{ msg?: unknown }>) : [];
  const messages = details.map((detail) => (typeof detail.msg === 'string' ? detail.msg : '')).filter(Boolean);
  return messages.length > 0 ? messages.join(' ') : error.message;
}
