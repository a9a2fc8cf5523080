import type { CheckoutWire } from '../../../core/checkouts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  product: string[];
  price?: string;
  discount?: string;
  email?: string;
  successUrl?: string;
  quiet?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const body: Record<string, unknown> = { products: opts.product };
  if (opts.price) body.product_price_id = opts.price;
  if (opts.discount) body.discount_id = opts.discount;
  if (opts.email) body.customer_email = opts.email;
  if (opts.successUrl) body.success_url = opts.successUrl;
  const checkout = await call<CheckoutWire>(signedIn(globals), 'POST', '/v1/checkouts/', { body });
  if (opts.json) printJson(checkout);
  else if (opts.quiet) printLine(checkout.id);
  else {
    // The URL is what gets sent to a buyer, so it stays alone on stdout (URL=$(till checkouts create ...)); the id,
    // which `checkouts show|pay` and `open` take, goes with the summary.
    printLine(checkout.url);
    info(
      `Created checkout ${checkout.id} (${money(checkout.total_amount, checkout.currency)}), open until ${checkout.expires_at}.`,
    );
  }
}
