import type { CheckoutWire } from '../../../core/checkouts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { money } from '../../money.js';
import { printFields, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const checkout = await call<CheckoutWire>(
    signedIn(globals),
    'GET',
    `/v1/checkouts/${encodeURIComponent(String(args[0]))}`,
  );
  if (opts.json) {
    printJson(checkout);
    return;
  }
  printFields([
    ['id', checkout.id],
    ['status', checkout.status],
    ['url', checkout.url],
    [
      'product',
      checkout.product ? `${checkout.product.name} (${checkout.product_id})` : String(checkout.product_id ?? ''),
    ],
    ['total', money(checkout.total_amount, checkout.currency)],
    ['customer', checkout.customer_email ?? ''],
    ['expires', checkout.expires_at],
  ]);
}
