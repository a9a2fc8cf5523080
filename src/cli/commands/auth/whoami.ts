import type { Invocation } from '../../action.js';
import { currentSession, resolveTarget } from '../../context.js';
import { printJson, printLine } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = resolveTarget(globals);
  const { user, session } = await currentSession(target);
  if (opts.json) {
    // The bearer token stays out of the output: it is a credential, and the caller already has it.
    const { token: _token, ...safeSession } = session;
    printJson({
      url: target.url,
      profile: target.profile,
      tokenSource: target.tokenSource,
      user,
      session: safeSession,
    });
    return;
  }
  printLine(`${user.name} <${user.email}>`);
  printLine(`user id:  ${user.id}`);
  printLine(
    `daemon:   ${target.url} (${target.tokenSource === 'env' ? 'token from TILL_TOKEN' : `profile "${target.profile}"`})`,
  );
  printLine(`session:  expires ${session.expiresAt}`);
}
