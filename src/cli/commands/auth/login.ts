import type { z } from 'zod';
import type { SignInBody, signInResponse } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { storeSession } from '../../credentials.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';
import { readSecrets } from '../../prompt.js';

interface Options {
  email?: string;
  passwordStdin?: boolean;
  provider?: string;
  browser: boolean;
  timeout: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (Boolean(opts.email) === Boolean(opts.provider))
    throw new UsageError('pass either --email (password sign-in) or --provider (browser sign-in)');
  const target = resolveTarget(globals);
  if (opts.provider) {
    const { loginWithProvider } = await import('./login-web.js');
    await loginWithProvider(target, { ...opts, provider: opts.provider });
    return;
  }
  const [password] = await readSecrets([{ label: 'Password' }], opts);
  const body: SignInBody = { email: opts.email!, password: password! };
  // A wrong password is a 401 too, but it is a failed attempt (exit 1), not a missing session (exit 4).
  const result = await call<z.output<typeof signInResponse>>(target, 'POST', '/api/auth/sign-in/email', {
    auth: { kind: 'none' },
    body,
  });
  storeSession(target, { token: result.token, email: result.user.email });
  if (opts.json) {
    printJson({ url: target.url, profile: target.profile, user: result.user });
    return;
  }
  info(`Signed in as ${result.user.name} <${result.user.email}> (profile "${target.profile}", ${target.url})`);
}
