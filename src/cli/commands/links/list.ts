import type { CheckoutLinkWire } from '../../../core/checkout-links/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn, type OrgChoice } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

export async function run({ opts, globals }: Invocation<OrgChoice & { product?: string[] }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  for (const product of opts.product ?? []) query.append('product_id', product);
  await orgFilter(target, query, opts);
  const links = await fetchAll<CheckoutLinkWire>(target, '/v1/checkout-links/', query);
  if (opts.json) {
    printJson(links);
    return;
  }
  printTable(
    ['ID', 'LABEL', 'PRODUCTS', 'DISCOUNT', 'URL'],
    links.map((link) => [
      link.id,
      link.label ?? '',
      link.products.map((product) => product.name).join(', '),
      link.discount?.name ?? '',
      link.url,
    ]),
  );
}
