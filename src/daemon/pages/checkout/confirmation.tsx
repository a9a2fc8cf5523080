import type { CheckoutPublicWire } from '../../../core/checkouts/schemas.js';
import { MessagePage } from './layout.js';
import { formatMoney } from './money.js';

/** The daemon's own success page, for checkouts without a success_url; server-rendered only. */
export function ConfirmationPage({ checkout, nonce }: { checkout: CheckoutPublicWire; nonce: string }) {
  if (checkout.status !== 'succeeded') {
    const processing = checkout.status === 'confirmed';
    return (
      <MessagePage
        nonce={nonce}
        title="Checkout"
        heading={processing ? 'Your payment is being processed' : 'This checkout is not paid yet'}
      >
        <p>
          {processing
            ? 'Refresh this page in a moment to see the result.'
            : 'Go back to the checkout to complete the payment.'}
        </p>
        {processing ? null : <a href=".">Back to the checkout</a>}
      </MessagePage>
    );
  }
  return (
    <MessagePage nonce={nonce} title="Thank you" heading="Thank you for your purchase!">
      <p>
        Your payment to {checkout.organization.name} for {checkout.product?.name} was successful.
      </p>
      <p data-testid="paid">Paid: {formatMoney(checkout.total_amount, checkout.currency)}</p>
      {checkout.customer_email ? <p>Purchased as {checkout.customer_email}.</p> : null}
    </MessagePage>
  );
}
