import type { DiscountWire } from '../../../core/discounts/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';
import { describeDiscount } from './shared.js';

export async function run({
  opts,
  globals,
}: Invocation<{ query?: string; org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  if (opts.query) query.set('query', opts.query);
  await orgFilter(target, query, opts);
  const discounts = await fetchAll<DiscountWire>(target, '/v1/discounts/', query);
  if (opts.json) {
    printJson(discounts);
    return;
  }
  printTable(
    ['ID', 'NAME', 'CODE', 'DISCOUNT', 'REDEEMED', 'ENDS'],
    discounts.map((discount) => [
      discount.id,
      discount.name,
      discount.code ?? '',
      describeDiscount(discount),
      discount.max_redemptions === null
        ? String(discount.redemptions_count)
        : `${discount.redemptions_count}/${discount.max_redemptions}`,
      discount.ends_at ?? '',
    ]),
  );
}
