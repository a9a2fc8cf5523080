import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const target = signedIn(globals);
  await call(target, 'DELETE', `/v1/custom-fields/${encodeURIComponent(id)}`);
  if (opts.json) {
    printJson({ deleted: true, id });
    return;
  }
  info(`Deleted custom field ${id}`);
}
