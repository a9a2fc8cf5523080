import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  await call(signedIn(globals), 'DELETE', `/v1/checkout-links/${encodeURIComponent(id)}`);
  if (opts.json) {
    printJson({ deleted: true, id });
    return;
  }
  info(`Deleted checkout link ${id}; its URL no longer starts a checkout, and checkouts it started stay.`);
}
