import type { CustomFieldWire } from '../../../core/custom-fields/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson } from '../../output.js';
import { describe, propertiesFrom, type FieldOptions } from './shared.js';

export async function run({ args, opts, globals }: Invocation<FieldOptions>): Promise<void> {
  const path = `/v1/custom-fields/${encodeURIComponent(String(args[0]))}`;
  const target = signedIn(globals);
  // The update names the type and replaces properties whole: read the field first to merge the flags onto it.
  const current = await call<CustomFieldWire>(target, 'GET', path);
  const body: Record<string, unknown> = { type: current.type };
  if (opts.slug !== undefined) body.slug = opts.slug;
  if (opts.name !== undefined) body.name = opts.name;
  const metadata = parseTypedMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  const properties = propertiesFrom(current.type, opts, current.properties as Record<string, unknown>);
  if (properties) body.properties = properties;
  if (Object.keys(body).length === 1)
    throw new UsageError('nothing to change: give --slug, --name, --metadata or property flags');
  const updated = await call<CustomFieldWire>(target, 'PATCH', path, { body });
  if (opts.json) {
    printJson(updated);
    return;
  }
  info(`Updated ${describe(updated)}.`);
}
