import type { CheckoutLinkWire } from '../../../core/checkout-links/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';

interface Page {
  items: CheckoutLinkWire[];
  pagination: { total_count: number; max_page: number };
}

export async function run({ opts, globals }: Invocation<{ product?: string[]; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams({ limit: '100' });
  for (const product of opts.product ?? []) query.append('product_id', product);
  const links: CheckoutLinkWire[] = [];
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const result = await call<Page>(target, 'GET', `/v1/checkout-links/?${query}`);
    links.push(...result.items);
    if (page >= result.pagination.max_page) break;
  }
  if (opts.json) {
    printJson(links);
    return;
  }
  printTable(
    ['ID', 'LABEL', 'PRODUCTS', 'DISCOUNT', 'URL'],
    links.map((link) => [link.id, link.label ?? '', link.products.map((product) => product.name).join(', '), link.discount?.name ?? '', link.url]),
  );
}
