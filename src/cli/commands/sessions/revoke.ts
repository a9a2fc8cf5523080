import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { forgetSession } from '../../credentials.js';
import { info, printJson } from '../../output.js';
import { tokenHandle } from './handle.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const handle = String(args[0]);
  const target = resolveTarget(globals);
  const token = bearer(target);
  // Unknown handles succeed silently on the daemon (as in Better Auth), so there is nothing to report for them.
  await call(target, 'POST', '/api/auth/revoke-session', { body: { token: handle } });
  const current = handle === token || handle === tokenHandle(token);
  if (current && target.tokenSource === 'profile') forgetSession(target);
  if (opts.json) {
    printJson({ revoked: true, current });
    return;
  }
  info(current ? 'Revoked the current session; you are signed out' : 'Revoked the session');
}
