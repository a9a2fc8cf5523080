import type { OrganizationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const org = await resolveOrg(target, String(args[0]));
  const active = await call<OrganizationWire>(target, 'POST', '/api/auth/organization/set-active', {
    body: { organizationId: org.id },
  });
  if (opts.json) {
    printJson(active);
    return;
  }
  info(`Active organization: ${active.name} (${active.slug})`);
}
