import type { MemberWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { resolveMember } from './members.js';

export async function run({ args, opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const member = await resolveMember(target, organizationId, String(args[0]));
  const role = String(args[1]);
  const updated = await call<MemberWire>(target, 'POST', '/api/auth/organization/update-member-role', {
    body: { memberId: member.id, role, organizationId: member.organizationId },
  });
  if (opts.json) {
    printJson(updated);
    return;
  }
  info(`${member.user.email} is now ${updated.role}`);
}
