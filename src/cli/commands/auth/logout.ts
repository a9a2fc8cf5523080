import { looksLikeApiKey } from '../../../core/api-keys/keys.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { forgetSession } from '../../credentials.js';
import { CliError, NotSignedInError } from '../../errors.js';
import { info, printJson } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  if (!target.token) throw new NotSignedInError(`not signed in (profile "${target.profile}", ${target.url})`);
  // An API key is not a session: signing out would end nothing, and saying otherwise would leave it live unnoticed.
  if (target.tokenSource === 'env' && looksLikeApiKey(target.token)) {
    throw new CliError(
      'TILL_TOKEN holds an API key, which logout does not end; revoke it with `till api-keys revoke <id>` or unset TILL_TOKEN',
      1,
    );
  }
  let failure: unknown = null;
  try {
    await call(target, 'POST', '/api/auth/sign-out', { body: {} });
  } catch (error) {
    failure = error;
  }
  // The local token goes even when the daemon cannot be told: logging out must never leave a usable token behind
  // on this machine. A TILL_TOKEN session is ended on the daemon; the variable itself is the caller's to unset.
  const forgotten = target.tokenSource === 'profile' ? forgetSession(target) : false;
  if (failure) {
    const reason = failure instanceof CliError ? failure.message : String(failure);
    throw new CliError(
      `${forgotten ? 'forgot the local session, but ' : ''}the daemon did not end it: ${reason}`,
      failure instanceof CliError ? failure.exitCode : 1,
    );
  }
  if (opts.json) {
    printJson({ signedOut: true, url: target.url, profile: target.profile, tokenSource: target.tokenSource });
    return;
  }
  info(
    `Signed out of ${target.url}${target.tokenSource === 'env' ? ' (the session in TILL_TOKEN has ended; unset the variable)' : ` (profile "${target.profile}")`}`,
  );
}
