import type { Invocation } from '../../action.js';
import { orgIdOf, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { listMembers } from './members.js';

export async function run({ opts, globals }: Invocation<{ org?: string; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const members = await listMembers(target, await orgIdOf(target, opts.org));
  if (opts.json) {
    printJson(members);
    return;
  }
  printTable(
    ['ID', 'EMAIL', 'NAME', 'ROLE', 'USER ID'],
    members.map((m) => [m.id, m.user.email, m.user.name, m.role, m.userId]),
  );
}
