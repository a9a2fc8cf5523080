import type { CustomFieldWire } from '../../../core/custom-fields/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson, printLine } from '../../output.js';
import { describe, propertiesFrom, type FieldOptions } from './shared.js';

interface Options extends FieldOptions {
  type: string;
  org?: string;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.slug === undefined || opts.name === undefined) throw new UsageError('give the field a --slug and a --name');
  const body: Record<string, unknown> = {
    type: opts.type,
    slug: opts.slug,
    name: opts.name,
    properties: propertiesFrom(opts.type, opts) ?? {},
  };
  const metadata = parseTypedMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  const target = signedIn(globals);
  await createIn(target, body, opts);
  const created = await call<CustomFieldWire>(target, 'POST', '/v1/custom-fields/', { body });
  if (opts.json) {
    printJson(created);
    return;
  }
  printLine(created.id);
  info(`Created ${describe(created)}.`);
}
