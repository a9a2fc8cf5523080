import type { Invocation } from '../../action.js';
import { info, printJson, printLine } from '../../output.js';
import { orgIdOf, signedIn } from '../org/shared.js';
import { teamCall, type TeamWire } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const team = await teamCall<TeamWire>(target, 'POST', 'create-team', { body: { name: String(args[0]), ...(organizationId ? { organizationId } : {}) } });
  if (opts.json) {
    printJson(team);
    return;
  }
  printLine(team.id);
  info(`Created team "${team.name}"`);
}
