import type { CustomerPaymentMethodWire } from '../../../../core/payment-methods/schemas.js';
import type { Invocation } from '../../../action.js';
import { call, signedIn } from '../../../context.js';
import { info, printJson, printLine } from '../../../output.js';
import { asCustomer, PORTAL_METHODS } from './portal.js';

interface Options {
  token: string;
  default?: boolean;
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const auth = await asCustomer(target, String(args[0]));
  const added = await call<{ status: 'succeeded'; payment_method: CustomerPaymentMethodWire }>(
    target,
    'POST',
    PORTAL_METHODS,
    {
      auth,
      // The sandbox never sends the customer anywhere, but Polar's request names where it would come back to.
      body: { confirmation_token_id: opts.token, set_default: opts.default === true, return_url: target.url },
    },
  );
  if (opts.json) {
    printJson(added.payment_method);
    return;
  }
  const card = added.payment_method.method_metadata;
  info(`saved ${card.brand} •••• ${card.last4}${opts.default ? ' as the default' : ''}`);
  printLine(added.payment_method.id);
}
