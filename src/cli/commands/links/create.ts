import type { CheckoutLinkWire } from '../../../core/checkout-links/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  product: string[];
  discount?: string;
  discountCodes: boolean;
  requireBillingAddress?: boolean;
  successUrl?: string;
  label?: string;
  quiet?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const body: Record<string, unknown> = {
    // Polar's API requires it and knows only this one; Till keeps the field so Polar's clients work unchanged.
    payment_processor: 'stripe',
    products: opts.product,
    allow_discount_codes: opts.discountCodes,
    require_billing_address: Boolean(opts.requireBillingAddress),
  };
  if (opts.discount !== undefined) body.discount_id = opts.discount;
  if (opts.successUrl !== undefined) body.success_url = opts.successUrl;
  if (opts.label !== undefined) body.label = opts.label;
  // The link belongs to its products' organization, so there is no --org.
  const link = await call<CheckoutLinkWire>(signedIn(globals), 'POST', '/v1/checkout-links/', { body });
  if (opts.json) {
    printJson(link);
    return;
  }
  if (opts.quiet) {
    printLine(link.id);
    return;
  }
  printLine(link.url);
  info(
    `Created checkout link ${link.id}${link.label ? ` "${link.label}"` : ''} for ${link.products.map((product) => product.name).join(', ')}.`,
  );
}
