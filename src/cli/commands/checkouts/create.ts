import type { CheckoutWire } from '../../../core/checkouts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';

interface Options {
  product: string[];
  price?: string;
  discount?: string;
  email?: string;
  successUrl?: string;
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
  else printLine(checkout.url);
}
