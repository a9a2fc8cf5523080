import type { Invocation } from '../../action.js';
import { call, resolveOrg, signedIn } from '../../context.js';
import { info, printJson } from '../../output.js';
import { confirmByTyping, requireConfirmable } from '../../prompt.js';

export async function run({ args, opts, globals }: Invocation<{ yes?: boolean; json?: boolean }>): Promise<void> {
  requireConfirmable(
    opts.yes,
    'refusing to delete the organization without confirmation: stdin is not a terminal, pass --yes',
  );
  const target = signedIn(globals);
  const org = await resolveOrg(target, String(args[0]));
  if (!opts.yes)
    await confirmByTyping(`This deletes the organization ${org.slug} for good. Type its slug to confirm: `, org.slug);
  await call(target, 'POST', '/api/auth/organization/delete', { body: { organizationId: org.id } });
  if (opts.json) {
    printJson({ deleted: true, id: org.id, slug: org.slug });
    return;
  }
  info(`Deleted organization ${org.name} (${org.slug})`);
}
