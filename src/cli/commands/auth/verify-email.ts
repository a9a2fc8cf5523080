import type { SendVerificationEmailBody } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, currentSession, resolveTarget } from '../../context.js';
import { info, printJson } from '../../output.js';

interface Options {
  callbackUrl?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = resolveTarget(globals);
  const session = await currentSession(target);
  const body: SendVerificationEmailBody = { email: session.user.email };
  if (opts.callbackUrl) body.callbackURL = opts.callbackUrl;
  await call(target, 'POST', '/api/auth/send-verification-email', { body });
  if (opts.json) {
    printJson({ sent: true, email: session.user.email });
    return;
  }
  info(`A verification link was mailed to ${session.user.email}; it is valid for one hour`);
}
