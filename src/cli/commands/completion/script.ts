import type { Invocation } from '../../action.js';
import { UsageError } from '../../errors.js';
import { printLine } from '../../output.js';
import { completionScript, SHELLS, type Shell } from './scripts.js';
import { completionTree } from './tree.js';

export async function run({ args, command }: Invocation): Promise<void> {
  const shell = String(args[0]);
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new UsageError(`invalid shell: must be one of ${SHELLS.join(', ')} (got "${shell}")`);
  printLine(completionScript(shell as Shell, completionTree(command.parent!)).trimEnd());
}
