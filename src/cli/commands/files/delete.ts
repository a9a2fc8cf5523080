import type { Invocation } from '../../action.js';
import { signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { v1 } from './api.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const id = String(args[0]);
  await v1<void>(signedIn(globals), 'DELETE', `/v1/files/${encodeURIComponent(id)}`);
  if (opts.json) printJson({ id, deleted: true });
  else info(`deleted file ${id}`);
}
