import type { z } from 'zod';
import type { SignUpBody, signUpResponse } from '../../../core/auth/schemas.js';
import type { Invocation } from '../../action.js';
import { call, resolveTarget } from '../../context.js';
import { storeSession } from '../../credentials.js';
import { info, printJson } from '../../output.js';
import { readSecrets } from '../../prompt.js';

interface Options {
  name: string;
  email: string;
  passwordStdin?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = resolveTarget(globals);
  const [password] = await readSecrets([{ label: 'Password', confirm: true }], opts);
  const body: SignUpBody = { name: opts.name, email: opts.email, password: password! };
  const result = await call<z.output<typeof signUpResponse>>(target, 'POST', '/api/auth/sign-up/email', {
    auth: { kind: 'none' },
    body,
  });
  // A daemon that requires e-mail verification signs nobody in at sign-up and sends no token.
  if (result.token) storeSession(target, { token: result.token, email: result.user.email });
  if (opts.json) {
    printJson({ url: target.url, profile: target.profile, signedIn: Boolean(result.token), user: result.user });
    return;
  }
  info(
    `Signed up as ${result.user.name} <${result.user.email}>${result.token ? ` and signed in (profile "${target.profile}", ${target.url})` : '; sign in with `till login` once the address is verified'}`,
  );
}
