import type { TeamWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { teamCall } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const team = await teamCall<TeamWire>(target, 'POST', 'update-team', {
    body: { teamId: String(args[0]), data: { name: String(args[1]) } },
  });
  if (opts.json) {
    printJson(team);
    return;
  }
  info(`Renamed team ${team.id} to "${team.name}"`);
}
