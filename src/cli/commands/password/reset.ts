import type { z } from 'zod';
import type {
  RequestPasswordResetBody,
  ResetPasswordBody,
  requestPasswordResetResponse,
} from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { readSecrets } from '../../prompt.js';

interface Options {
  email?: string;
  token?: string;
  redirectTo?: string;
  passwordStdin?: boolean;
  json?: boolean;
}

/** Needs no session: the first step mails a token, the second spends it. */
export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (!opts.email && !opts.token)
    throw new UsageError('pass --email to ask for a reset token, or --token to set a new password with one');
  const target = resolveTarget(globals);
  if (opts.email) {
    const body: RequestPasswordResetBody = { email: opts.email };
    if (opts.redirectTo) body.redirectTo = opts.redirectTo;
    const answer = await call<z.output<typeof requestPasswordResetResponse>>(
      target,
      'POST',
      '/api/auth/request-password-reset',
      { auth: { kind: 'none' }, body },
    );
    if (opts.json) {
      printJson({ requested: true, email: opts.email });
      return;
    }
    info(`${answer.message}; then run \`till password reset --token <token>\``);
    return;
  }
  const [newPassword] = await readSecrets([{ label: 'New password', confirm: true }], opts);
  const body: ResetPasswordBody = { token: opts.token!, newPassword: newPassword! };
  await call(target, 'POST', '/api/auth/reset-password', { auth: { kind: 'none' }, body });
  if (opts.json) {
    printJson({ reset: true });
    return;
  }
  info('Password reset; sign in with `till login`');
}
