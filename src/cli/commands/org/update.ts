import type { OrganizationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgIdOf, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { info, printJson } from '../../output.js';

interface Options {
  name?: string;
  slug?: string;
  logo?: string;
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const data: Record<string, string> = {};
  if (opts.name !== undefined) data.name = opts.name;
  if (opts.slug !== undefined) data.slug = opts.slug;
  if (opts.logo !== undefined) data.logo = opts.logo;
  if (Object.keys(data).length === 0) throw new UsageError('nothing to change: give --name, --slug or --logo');
  const target = signedIn(globals);
  const organizationId = await orgIdOf(target, args[0]);
  const updated = await call<OrganizationWire>(target, 'POST', '/api/auth/organization/update', {
    body: { data, organizationId },
  });
  if (opts.json) {
    printJson(updated);
    return;
  }
  info(`Updated organization ${updated.name} (${updated.slug})`);
}
