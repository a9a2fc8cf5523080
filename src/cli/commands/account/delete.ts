import type { z } from 'zod';
import type { DeleteUserBody, deleteUserResponse } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, currentSession, resolveTarget, type Target } from '../../context.js';
import { forgetSession } from '../../credentials.js';
import { ApiError, CliError, UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { confirmByTyping, readSecrets, requireConfirmable } from '../../prompt.js';

type DeleteUserResponse = z.output<typeof deleteUserResponse>;

interface Options {
  yes?: boolean;
  passwordStdin?: boolean;
  token?: string;
  callbackUrl?: string;
  json?: boolean;
}

async function deleteUser(target: Target, body: NonNullable<DeleteUserBody>): Promise<DeleteUserResponse> {
  try {
    return await call<DeleteUserResponse>(target, 'POST', '/api/auth/delete-user', { body });
  } catch (error) {
    // Better Auth answers a turned-off route with a bare 404.
    if (error instanceof ApiError && error.status === 404 && !error.code)
      throw new CliError('this daemon does not allow deleting accounts (TILL_DELETE_USER=off)');
    throw error;
  }
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = resolveTarget(globals);
  const session = await currentSession(target);
  const { email } = session.user;
  requireConfirmable(
    opts.yes,
    'refusing to delete the account without confirmation: stdin is not a terminal, pass --yes',
  );
  if (!opts.yes)
    await confirmByTyping(`This deletes ${email} and everything in it for good. Type the address to confirm: `, email, {
      ignoreCase: true,
    });
  const body: NonNullable<DeleteUserBody> = {};
  if (opts.token) body.token = opts.token;
  if (opts.callbackUrl) body.callbackURL = opts.callbackUrl;
  if (opts.passwordStdin) [body.password] = await readSecrets([{ label: 'Password' }], opts);
  let answer: DeleteUserResponse;
  try {
    answer = await deleteUser(target, body);
  } catch (error) {
    // The session is too old to delete on its own say-so: a terminal can still supply the password.
    if (!(error instanceof ApiError && error.code === 'SESSION_EXPIRED') || body.password) throw error;
    if (!process.stdin.isTTY) throw new UsageError(`${error.serverMessage} Pass the password with --password-stdin`);
    [body.password] = await readSecrets([{ label: 'Password' }], {});
    answer = await deleteUser(target, body);
  }
  const deleted = answer.message === 'User deleted';
  if (deleted && target.tokenSource === 'profile') forgetSession(target);
  if (opts.json) {
    printJson({ deleted, verificationSent: !deleted, email });
    return;
  }
  info(
    deleted
      ? `Deleted the account ${email}`
      : `A confirmation link was mailed to ${email}; open it while signed in, or run \`till account delete --token <token>\``,
  );
}
