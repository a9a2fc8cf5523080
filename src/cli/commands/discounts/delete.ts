import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  // An unknown id is the daemon's 404, which exits 1.
  await call(signedIn(globals), 'DELETE', `/v1/discounts/${encodeURIComponent(id)}`);
  if (opts.json) {
    printJson({ deleted: true, id });
    return;
  }
  info(`Deleted discount ${id}; orders that used it keep it, and its code can be used again.`);
}
