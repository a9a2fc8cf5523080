import type { Invocation } from '../../action.js';
import { run as open } from '../open/open.js';

/** `till customers portal <id>` is `till open portal <id>` named where people look for it: under customers. */
export async function run(invocation: Invocation<{ browser?: boolean; json?: boolean }>): Promise<void> {
  await open({ ...invocation, args: ['portal', invocation.args[0]] });
}
