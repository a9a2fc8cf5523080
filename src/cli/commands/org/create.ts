import type { OrganizationWire } from '../../../core/organizations/schemas.js';
import type { Invocation } from '../../action.js';
import { call, listOrgs, signedIn } from '../../context.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  name: string;
  slug: string;
  logo?: string;
  ifNotExists?: boolean;
  keepActive?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  // CI provisioning re-runs the same script: an organization of ours with this slug already is the goal reached.
  if (opts.ifNotExists) {
    const existing = (await listOrgs(target)).find((org) => org.slug === opts.slug);
    if (existing) {
      if (opts.json) printJson({ ...existing, created: false });
      else {
        printLine(existing.id);
        info(`Organization "${existing.slug}" already exists; nothing changed.`);
      }
      return;
    }
  }
  const body: Record<string, unknown> = { name: opts.name, slug: opts.slug };
  if (opts.logo !== undefined) body.logo = opts.logo;
  if (opts.keepActive) body.keepCurrentActiveOrganization = true;
  const created = await call<OrganizationWire>(target, 'POST', '/api/auth/organization/create', { body });
  if (opts.json) {
    printJson({ ...created, created: true });
    return;
  }
  printLine(created.id);
  info(
    opts.keepActive
      ? `Created organization "${created.name}" (${created.slug}); the active organization is unchanged.`
      : `Created organization "${created.name}" (${created.slug}); it is now the active organization.`,
  );
}
