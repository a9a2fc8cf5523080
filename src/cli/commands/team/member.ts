import type { Invocation } from '../../action.js';
import { orgIdOf, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { resolveTeam, resolveUserId, teamCall } from './shared.js';

/** add-member and remove-member take the same arguments and differ only in route and answer. */
export function runner(action: 'add' | 'remove') {
  return async ({ args, opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> => {
    const target = signedIn(globals);
    const team = await resolveTeam(target, String(args[0]), await orgIdOf(target, opts.org));
    const userId = await resolveUserId(target, team.organizationId, String(args[1]));
    const body = { teamId: team.id, userId, organizationId: team.organizationId };
    const answer = await teamCall<unknown>(
      target,
      'POST',
      action === 'add' ? 'add-team-member' : 'remove-team-member',
      { body },
    );
    if (opts.json) {
      printJson(action === 'add' ? answer : { removed: true, teamId: team.id, userId });
      return;
    }
    info(action === 'add' ? `Added ${args[1]} to team "${team.name}"` : `Removed ${args[1]} from team "${team.name}"`);
  };
}
