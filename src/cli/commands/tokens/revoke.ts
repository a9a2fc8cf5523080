import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  const target = signedIn(globals);
  // Another organization's token, or an unknown id, is the daemon's 404, which exits 1.
  await call(target, 'DELETE', `/v1/organization-access-tokens/${encodeURIComponent(id)}`);
  if (opts.json) {
    printJson({ revoked: true, id });
    return;
  }
  info(`Revoked access token ${id}`);
}
