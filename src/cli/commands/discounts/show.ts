import type { DiscountWire } from '../../../core/discounts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printFields, printJson } from '../../output.js';
import { describeDiscount } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const discount = await call<DiscountWire>(
    signedIn(globals),
    'GET',
    `/v1/discounts/${encodeURIComponent(String(args[0]))}`,
  );
  if (opts.json) {
    printJson(discount);
    return;
  }
  const redeemed =
    discount.max_redemptions === null
      ? `${discount.redemptions_count} (no limit)`
      : `${discount.redemptions_count} of ${discount.max_redemptions}`;
  printFields([
    ['id', discount.id],
    ['name', discount.name],
    ['code', discount.code ?? ''],
    ['discount', describeDiscount(discount)],
    ['redeemed', redeemed],
    ['starts', discount.starts_at ?? ''],
    ['ends', discount.ends_at ?? ''],
    ['products', discount.products.map((product) => `${product.name} (${product.id})`).join(', ') || 'all'],
    ['organization', discount.organization_id],
    ['created', discount.created_at],
  ]);
}
