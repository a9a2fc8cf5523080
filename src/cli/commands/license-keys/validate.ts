import type { ValidatedLicenseKeyWire } from '../../../core/license-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { call, listOrgs, resolveOrg, signedIn, type Target } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../output.js';
import { printKey } from './shared.js';

async function organizationOf(target: Target, ref: string | undefined): Promise<string> {
  if (ref !== undefined) return (await resolveOrg(target, ref)).id;
  const orgs = await listOrgs(target);
  if (orgs.length !== 1) throw new UsageError('--org is needed: you belong to several organizations (or none)');
  return orgs[0]!.id;
}

export async function run({
  args,
  opts,
  globals,
}: Invocation<{ org?: string; incrementUsage?: string; json?: boolean }>): Promise<void> {
  const body: Record<string, unknown> = { key: String(args[0]) };
  if (opts.incrementUsage !== undefined) {
    if (!/^\d+$/.test(opts.incrementUsage))
      throw new UsageError(`--increment-usage takes a whole number (got "${opts.incrementUsage}")`);
    body.increment_usage = Number(opts.incrementUsage);
  }
  const target = signedIn(globals);
  body.organization_id = await organizationOf(target, opts.org);
  const key = await call<ValidatedLicenseKeyWire>(target, 'POST', '/v1/license-keys/validate', { body });
  if (opts.json) printJson(key);
  else printKey(key);
}
