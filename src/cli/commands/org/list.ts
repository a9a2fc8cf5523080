import type { Invocation } from '../../action.js';
import { listOrgs, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';

export async function run({ opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const orgs = await listOrgs(signedIn(globals));
  if (opts.json) {
    printJson(orgs);
    return;
  }
  printTable(
    ['ID', 'SLUG', 'NAME', 'CREATED'],
    orgs.map((org) => [org.id, org.slug, org.name, org.createdAt]),
  );
}
