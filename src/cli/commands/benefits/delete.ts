import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const target = signedIn(globals);
  // Refusals (not deletable, still on a product) are the daemon's 403 and exit 1 with its explanation.
  await call(target, 'DELETE', `/v1/benefits/${encodeURIComponent(id)}`);
  if (opts.json) {
    printJson({ deleted: true, id });
    return;
  }
  info(`Deleted benefit ${id}`);
}
