import type { DiscountWire } from '../../../core/discounts/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { describeDiscount } from './shared.js';

interface Page {
  items: DiscountWire[];
  pagination: { total_count: number; max_page: number };
}

export async function run({ opts, globals }: Invocation<{ query?: string; org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams({ limit: '100' });
  if (opts.query) query.set('query', opts.query);
  if (opts.org !== undefined) query.set('organization_id', (await resolveOrg(target, opts.org)).id);
  // Every page: a list command that silently stops at 100 would mislead scripts.
  const discounts: DiscountWire[] = [];
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const result = await call<Page>(target, 'GET', `/v1/discounts/?${query}`);
    discounts.push(...result.items);
    if (page >= result.pagination.max_page) break;
  }
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
      discount.max_redemptions === null ? String(discount.redemptions_count) : `${discount.redemptions_count}/${discount.max_redemptions}`,
      discount.ends_at ?? '',
    ]),
  );
}
