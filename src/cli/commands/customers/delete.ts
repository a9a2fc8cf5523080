import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { customerPath } from './shared.js';

export async function run({
  args,
  opts,
  globals,
}: Invocation<{ externalId?: string; anonymize?: boolean; json?: boolean }>): Promise<void> {
  const path = customerPath(args[0], opts.externalId) + (opts.anonymize ? '?anonymize=true' : '');
  // An unknown customer is the daemon's 404, which exits 1.
  await call(signedIn(globals), 'DELETE', path);
  const ref = typeof args[0] === 'string' ? args[0] : `external id ${opts.externalId}`;
  if (opts.json) {
    printJson({ deleted: true, ...(typeof args[0] === 'string' ? { id: args[0] } : { external_id: opts.externalId }) });
    return;
  }
  info(`Deleted customer ${ref}${opts.anonymize ? ' and erased their personal data' : ''}.`);
}
