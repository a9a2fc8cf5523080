import type { SessionAndUserWire, UpdateUserBody } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { NotSignedInError, UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';

interface Options {
  name?: string;
  image?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.name === undefined && opts.image === undefined)
    throw new UsageError('nothing to update: pass --name and/or --image');
  const target = resolveTarget(globals);
  bearer(target);
  const body: UpdateUserBody = {};
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.image !== undefined) body.image = opts.image === '' ? null : opts.image;
  await call(target, 'POST', '/api/auth/update-user', { body });
  // update-user only answers {status: true}; the session read shows what the daemon actually stored.
  const session = await call<SessionAndUserWire | null>(target, 'GET', '/api/auth/get-session');
  if (!session) throw new NotSignedInError('the session ended during the update; run `till login`');
  if (opts.json) {
    printJson({ user: session.user });
    return;
  }
  info(`Updated ${session.user.email}: name "${session.user.name}", image ${session.user.image ?? '(none)'}`);
}
