import type { ProductWire } from '../../../core/products/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

/** Archiving is how a product is retired (Polar has no delete): it leaves checkouts, customers keep what they have. */
export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const product = await call<ProductWire>(
    signedIn(globals),
    'PATCH',
    `/v1/products/${encodeURIComponent(String(args[0]))}`,
    { body: { is_archived: true } },
  );
  if (opts.json) {
    printJson(product);
    return;
  }
  info(`Archived product "${product.name}"; \`till products update ${product.id} --unarchive\` brings it back.`);
}
