import type { SessionAndUserWire } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call } from '../../client.js';
import { NotSignedInError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';
import { resolveTarget } from '../../target.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  const result = await call<SessionAndUserWire | null>(target, 'GET', '/api/auth/get-session');
  // Better Auth answers an unknown, expired or revoked session with 200 and a literal null.
  if (!result) throw new NotSignedInError('not signed in: the session has expired or was revoked; run `till login`');
  const { user, session } = result;
  if (opts.json) {
    // The bearer token stays out of the output: it is a credential, and the caller already has it.
    const { token: _token, ...safeSession } = session;
    printJson({ url: target.url, profile: target.profile, tokenSource: target.tokenSource, user, session: safeSession });
    return;
  }
  printLine(`${user.name} <${user.email}>`);
  printLine(`user id:  ${user.id}`);
  printLine(`daemon:   ${target.url} (${target.tokenSource === 'env' ? 'token from TILL_TOKEN' : `profile "${target.profile}"`})`);
  printLine(`session:  expires ${session.expiresAt}`);
}
