import type { Invocation } from '../../action.js';
import { call } from '../../client.js';
import { CliError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';
import { orgIdOf, signedIn, type InvitationWire, type MemberWire, type OrgWire } from './shared.js';

type Full = OrgWire & { members: MemberWire[]; invitations: InvitationWire[] };

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const id = await orgIdOf(target, args[0]);
  const query = id ? `?organizationId=${encodeURIComponent(id)}` : '';
  const full = await call<Full | null>(target, 'GET', `/api/auth/organization/get-full-organization${query}`);
  // null is the daemon's "no active organization" when none was named.
  if (!full) throw new CliError('no active organization; name one or run `till org use <id|slug>`');
  if (opts.json) {
    printJson(full);
    return;
  }
  printLine(`${full.name} (${full.slug})  id ${full.id}`);
  printLine(`members: ${full.members.length}, pending invitations: ${full.invitations.filter((i) => i.status === 'pending').length}`);
}
