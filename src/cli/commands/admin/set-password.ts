import type { UserWire } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { readSecrets } from '../../prompt.js';
import { resolveAdminToken } from './admin-token.js';

interface Options {
  email?: string;
  userId?: string;
  passwordStdin?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (!opts.email && !opts.userId) throw new UsageError('pass --email or --user-id to say whose password to set');
  const target = resolveTarget(globals);
  const token = resolveAdminToken();
  const [newPassword] = await readSecrets([{ label: 'New password', confirm: true }], opts);
  const who = opts.email ? { email: opts.email } : { userId: opts.userId };
  const result = await call<{ status: boolean; user: UserWire }>(target, 'POST', '/api/admin/set-password', {
    auth: { kind: 'admin', token },
    body: { ...who, newPassword },
  });
  if (opts.json) {
    printJson({ status: result.status, user: result.user });
    return;
  }
  info(`Password set for ${result.user.name} <${result.user.email}> (user ${result.user.id})`);
}
