import type { LicenseKeyReadWire } from '../../../core/license-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../output.js';
import { printKey } from './shared.js';

interface Options {
  status?: string;
  usage?: string;
  limitActivations?: string;
  limitUsage?: string;
  expiresAt?: string;
  json?: boolean;
}

function whole(flag: string, value: string, clearWord?: string): number | null {
  if (clearWord && value === clearWord) return null;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number (got "${value}")`);
  return Number(value);
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const body: Record<string, unknown> = {};
  if (opts.status !== undefined) {
    if (!['granted', 'revoked', 'disabled'].includes(opts.status))
      throw new UsageError(`--status is granted, revoked or disabled (got "${opts.status}")`);
    body.status = opts.status;
  }
  if (opts.usage !== undefined) body.usage = whole('--usage', opts.usage);
  if (opts.limitActivations !== undefined)
    body.limit_activations = whole('--limit-activations', opts.limitActivations, 'none');
  if (opts.limitUsage !== undefined) body.limit_usage = whole('--limit-usage', opts.limitUsage, 'none');
  if (opts.expiresAt !== undefined) {
    if (opts.expiresAt !== 'never' && Number.isNaN(Date.parse(opts.expiresAt)))
      throw new UsageError(`--expires-at takes an ISO 8601 date-time or "never" (got "${opts.expiresAt}")`);
    body.expires_at = opts.expiresAt === 'never' ? null : new Date(opts.expiresAt).toISOString();
  }
  if (Object.keys(body).length === 0) throw new UsageError('nothing to update: give at least one option');
  const target = signedIn(globals);
  const path = `/v1/license-keys/${encodeURIComponent(String(args[0]))}`;
  const key = await call<LicenseKeyReadWire>(target, 'PATCH', path, { body });
  if (opts.json) printJson(key);
  else printKey(key);
}
