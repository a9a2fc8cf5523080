import type { ChangeEmailBody } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, currentSession, resolveTarget } from '../../context.js';
import { info, printJson } from '../../output.js';

interface Options {
  email: string;
  callbackUrl?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = resolveTarget(globals);
  const session = await currentSession(target);
  const body: ChangeEmailBody = { newEmail: opts.email };
  if (opts.callbackUrl) body.callbackURL = opts.callbackUrl;
  await call(target, 'POST', '/api/auth/change-email', { body });
  // Which mailbox gets the first link follows from whether the current address is verified.
  const mailedTo = session.user.emailVerified ? session.user.email : opts.email;
  if (opts.json) {
    printJson({ requested: true, email: session.user.email, newEmail: opts.email, mailedTo });
    return;
  }
  info(
    session.user.emailVerified
      ? `A link to approve the change was mailed to ${session.user.email}; a verification link then goes to ${opts.email}`
      : `A verification link was mailed to ${opts.email} (unless that address already has an account); opening it moves the account there`,
  );
}
