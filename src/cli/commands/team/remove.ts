import type { Invocation } from '../../action.js';
import { orgIdOf, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { teamCall } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const teamId = String(args[0]);
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  await teamCall(target, 'POST', 'remove-team', { body: { teamId, ...(organizationId ? { organizationId } : {}) } });
  if (opts.json) {
    printJson({ removed: true, id: teamId });
    return;
  }
  info(`Removed team ${teamId}`);
}
