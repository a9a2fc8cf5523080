import { createInterface } from 'node:readline/promises';
import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';

async function confirm(slug: string): Promise<void> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`This deletes the organization ${slug} for good. Type its slug to confirm: `);
    if (answer.trim() !== slug) throw new CliError('not confirmed; nothing was deleted', EXIT.usage);
  } finally {
    prompt.close();
  }
}

export async function run({ args, opts, globals }: Invocation<{ yes?: boolean; json?: boolean }>): Promise<void> {
  // Deleting is irreversible: a script (no terminal) must say --yes, since nobody could answer a prompt.
  if (!opts.yes && !process.stdin.isTTY) throw new UsageError('refusing to delete the organization without confirmation: stdin is not a terminal, pass --yes');
  const target = signedIn(globals);
  const org = await resolveOrg(target, String(args[0]));
  if (!opts.yes) await confirm(org.slug);
  await call(target, 'POST', '/api/auth/organization/delete', { body: { organizationId: org.id } });
  if (opts.json) {
    printJson({ deleted: true, id: org.id, slug: org.slug });
    return;
  }
  info(`Deleted organization ${org.name} (${org.slug})`);
}
