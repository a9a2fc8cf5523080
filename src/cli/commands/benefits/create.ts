import type { BenefitWire } from '../../../core/benefits/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson, printLine } from '../../output.js';
import { describe, propertiesFrom, type PropertyOptions } from './shared.js';

interface Options extends PropertyOptions {
  type: string;
  org?: string;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.description === undefined) throw new UsageError('give the benefit a --description (3-42 characters)');
  const body: Record<string, unknown> = {
    type: opts.type,
    description: opts.description,
    properties: propertiesFrom(opts.type, opts) ?? {},
  };
  const metadata = parseTypedMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  if (opts.visibility !== undefined) body.visibility = opts.visibility;
  const target = signedIn(globals);
  await createIn(target, body, opts);
  const created = await call<BenefitWire>(target, 'POST', '/v1/benefits/', { body });
  if (opts.json) {
    printJson(created);
    return;
  }
  printLine(created.id);
  info(`Created ${describe(created)}.`);
}
