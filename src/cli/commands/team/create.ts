import type { TeamWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { orgIdOf, signedIn } from '../../context.js';
import { info, printJson, printLine } from '../../output.js';
import { listTeams, teamCall } from './shared.js';

interface Options {
  org?: string;
  ifNotExists?: boolean;
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const name = String(args[0]);
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  // CI provisioning re-runs the same script: a team of this name in the organization already is the goal reached.
  // Team names are not unique on the server, so without the flag a second create makes a second team.
  if (opts.ifNotExists) {
    const existing = (await listTeams(target, organizationId)).find((team) => team.name === name);
    if (existing) {
      if (opts.json) printJson({ ...existing, created: false });
      else {
        printLine(existing.id);
        info(`Team "${existing.name}" already exists; nothing changed.`);
      }
      return;
    }
  }
  const team = await teamCall<TeamWire>(target, 'POST', 'create-team', {
    body: { name, ...(organizationId ? { organizationId } : {}) },
  });
  if (opts.json) {
    // `created` only with --if-not-exists, where it tells the two outcomes apart; the plain answer stays the team.
    printJson(opts.ifNotExists ? { ...team, created: true } : team);
    return;
  }
  printLine(team.id);
  info(`Created team "${team.name}"`);
}
