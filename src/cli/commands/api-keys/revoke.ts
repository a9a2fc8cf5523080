import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const target = resolveTarget(globals);
  bearer(target);
  // An unknown id is the daemon's 404 "API Key not found", which exits 1.
  await call(target, 'POST', '/api/auth/api-key/delete', { body: { keyId: id } });
  if (opts.json) {
    printJson({ revoked: true, id });
    return;
  }
  info(`Revoked API key ${id}`);
}
