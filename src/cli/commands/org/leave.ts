import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { CliError } from '../../errors.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, args[0]);
  // The route needs an id; without one, leave the active organization (as get-full-organization names it).
  const id =
    organizationId ??
    (await call<{ id: string } | null>(target, 'GET', '/api/auth/organization/get-full-organization'))?.id;
  if (!id) throw new CliError('no active organization; name the one to leave');
  const member = await call<unknown>(target, 'POST', '/api/auth/organization/leave', { body: { organizationId: id } });
  if (opts.json) {
    printJson(member);
    return;
  }
  info(`Left organization ${id}`);
}
