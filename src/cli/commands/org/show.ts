import type { FullOrganizationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, orgQuery, signedIn } from '../../context.js';
import { CliError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const id = await orgIdOf(target, args[0]);
  const full = await call<FullOrganizationWire | null>(
    target,
    'GET',
    `/api/auth/organization/get-full-organization${orgQuery(id)}`,
  );
  // null is the daemon's "no active organization" when none was named.
  if (!full) throw new CliError('no active organization; name one or run `till org use <id|slug>`');
  if (opts.json) {
    printJson(full);
    return;
  }
  printLine(`${full.name} (${full.slug})  id ${full.id}`);
  printLine(
    `members: ${full.members.length}, pending invitations: ${full.invitations.filter((i) => i.status === 'pending').length}`,
  );
}
