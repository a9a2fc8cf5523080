import type { BenefitWire } from '../../../core/benefits/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const benefit = await call<BenefitWire>(target, 'GET', `/v1/benefits/${encodeURIComponent(String(args[0]))}`);
  if (opts.json) {
    printJson(benefit);
    return;
  }
  printLine(`${benefit.id}  ${benefit.type}  ${benefit.description}`);
  for (const [key, value] of Object.entries(benefit.properties)) printLine(`  ${key}: ${JSON.stringify(value)}`);
}
