import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  await call(target, 'POST', '/api/auth/revoke-other-sessions', { body: {} });
  if (opts.json) {
    printJson({ revokedOthers: true });
    return;
  }
  info('Revoked every other session; this one stays signed in');
}
