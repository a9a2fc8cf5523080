import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { resolveMember } from './members.js';

export async function run({ args, opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, opts.org);
  const member = await resolveMember(target, organizationId, String(args[0]));
  const answer = await call<unknown>(target, 'POST', '/api/auth/organization/remove-member', {
    body: { memberIdOrEmail: member.id, organizationId: member.organizationId },
  });
  if (opts.json) {
    printJson(answer);
    return;
  }
  info(`Removed ${member.user.email} from the organization`);
}
