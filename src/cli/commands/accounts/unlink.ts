import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  const accountId = String(args[0]);
  await call(target, 'POST', '/api/auth/unlink-account', { body: { accountId } });
  if (opts.json) {
    printJson({ unlinked: true, accountId });
    return;
  }
  info(`Unlinked account ${accountId}`);
}
