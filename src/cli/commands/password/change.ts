import type { z } from 'zod';
import type { ChangePasswordBody, changePasswordResponse } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { storeSession } from '../../credentials.js';
import { info, printJson } from '../../output.js';
import { readSecrets } from '../../prompt.js';

interface Options {
  passwordStdin?: boolean;
  revokeOtherSessions?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = resolveTarget(globals);
  // Checked before prompting, so nobody types two passwords only to hear they are not signed in.
  bearer(target);
  const [currentPassword, newPassword] = await readSecrets(
    [{ label: 'Current password' }, { label: 'New password', confirm: true }],
    opts,
  );
  const body: ChangePasswordBody = {
    currentPassword: currentPassword!,
    newPassword: newPassword!,
    revokeOtherSessions: Boolean(opts.revokeOtherSessions),
  };
  const result = await call<z.output<typeof changePasswordResponse>>(target, 'POST', '/api/auth/change-password', {
    body,
  });
  // Revoking other sessions ends this one as well (session fixation); the daemon hands back its replacement.
  if (result.token) storeSession(target, { token: result.token, email: result.user.email });
  if (opts.json) {
    printJson({
      changed: true,
      revokedOtherSessions: Boolean(opts.revokeOtherSessions),
      sessionReplaced: Boolean(result.token),
      user: result.user,
    });
    return;
  }
  info(
    `Password changed for ${result.user.email}${result.token ? '; other sessions were signed out and this one was renewed' : ''}`,
  );
}
