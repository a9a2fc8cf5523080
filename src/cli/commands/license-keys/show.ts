import type { LicenseKeyWithActivationsWire } from '../../../core/license-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';
import { printKey } from './shared.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const path = `/v1/license-keys/${encodeURIComponent(String(args[0]))}`;
  const key = await call<LicenseKeyWithActivationsWire>(target, 'GET', path);
  if (opts.json) {
    printJson(key);
    return;
  }
  printKey(key);
  printLine(key.activations.length ? 'activations:' : 'activations: none');
  for (const activation of key.activations)
    printLine(`  ${activation.id}  ${activation.label}  ${activation.created_at}`);
}
