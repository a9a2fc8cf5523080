import type { CheckoutLinkWire } from '../../../core/checkout-links/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';

interface Options {
  product?: string[];
  discount?: string;
  discountCodes?: boolean;
  requireBillingAddress?: boolean;
  successUrl?: string;
  label?: string;
  json?: boolean;
}

/** `none` (or an empty value) clears an optional setting; anything else is sent as given. */
const orNull = (value: string) => (value === '' || value === 'none' ? null : value);

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const body: Record<string, unknown> = {};
  if (opts.product !== undefined) body.products = opts.product;
  if (opts.discount !== undefined) body.discount_id = orNull(opts.discount);
  if (opts.discountCodes !== undefined) body.allow_discount_codes = opts.discountCodes;
  if (opts.requireBillingAddress !== undefined) body.require_billing_address = opts.requireBillingAddress;
  if (opts.successUrl !== undefined) body.success_url = orNull(opts.successUrl);
  if (opts.label !== undefined) body.label = orNull(opts.label);
  if (Object.keys(body).length === 0)
    throw new UsageError(
      'nothing to change: give --product, --discount, --discount-codes/--no-discount-codes, --require-billing-address/--no-require-billing-address, --success-url or --label',
    );
  const link = await call<CheckoutLinkWire>(
    signedIn(globals),
    'PATCH',
    `/v1/checkout-links/${encodeURIComponent(String(args[0]))}`,
    { body },
  );
  if (opts.json) {
    printJson(link);
    return;
  }
  info(
    `Updated checkout link ${link.id}${link.label ? ` "${link.label}"` : ''}: ${link.products.map((product) => product.name).join(', ')}${link.discount ? `, discount ${link.discount.name}` : ''}, discount codes ${link.allow_discount_codes ? 'allowed' : 'not allowed'}.`,
  );
}
