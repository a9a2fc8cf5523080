import type { Invocation } from '../../action.js';
import { orgIdOf, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { listTeams } from './shared.js';

export async function run({ opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const teams = await listTeams(target, organizationId);
  if (opts.json) {
    printJson(teams);
    return;
  }
  printTable(
    ['ID', 'NAME', 'CREATED'],
    teams.map((team) => [team.id, team.name, team.createdAt]),
  );
}
