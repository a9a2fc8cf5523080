import type { CreateApiKeyBody, CreatedApiKeyWire } from '../../../core/api-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { bearer, call, resolveTarget } from '../../context.js';
import { wholeNumberFlag } from '../../flags.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  name?: string;
  expiresIn?: string;
  prefix?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const body: CreateApiKeyBody = {};
  if (opts.expiresIn !== undefined) {
    body.expiresIn = wholeNumberFlag('--expires-in', opts.expiresIn, 1) * 86400;
  }
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.prefix !== undefined) body.prefix = opts.prefix;
  const target = resolveTarget(globals);
  bearer(target);
  const created = await call<CreatedApiKeyWire>(target, 'POST', '/api/auth/api-key/create', { body });
  if (opts.json) {
    printJson(created);
    return;
  }
  printLine(created.key);
  const label = created.name ? `"${created.name}" (${created.id})` : created.id;
  info(`Created API key ${label}, ${created.expiresAt ? `expiring ${created.expiresAt}` : 'without expiry'}.`);
  info('This is the only time it is shown: store it now (for CI, as TILL_TOKEN).');
}
