import type { Invocation } from '../../action.js';
import { printJson, printLine } from '../../output.js';
import { resolveAdminToken } from './admin-token.js';

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<void> {
  const token = resolveAdminToken();
  if (opts.json) printJson({ token });
  else printLine(token);
}
