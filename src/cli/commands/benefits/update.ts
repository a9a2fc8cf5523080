import type { BenefitWire } from '../../../core/benefits/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseTypedMetadata } from '../../metadata.js';
import { info, printJson } from '../../output.js';
import { currentProperties, describe, propertiesFrom, type PropertyOptions } from './shared.js';

export async function run({ args, opts, globals }: Invocation<PropertyOptions>): Promise<void> {
  const path = `/v1/benefits/${encodeURIComponent(String(args[0]))}`;
  const target = signedIn(globals);
  // The update names the type (Polar's update is a union by type) and replaces properties whole, so the
  // benefit is read first: its type to send, its properties for the flags to merge onto.
  const current = await call<BenefitWire>(target, 'GET', path);
  const body: Record<string, unknown> = { type: current.type };
  if (opts.description !== undefined) body.description = opts.description;
  if (opts.visibility !== undefined) body.visibility = opts.visibility;
  const metadata = parseTypedMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  const properties = propertiesFrom(current.type, opts, currentProperties(current));
  if (properties) body.properties = properties;
  if (Object.keys(body).length === 1)
    throw new UsageError('nothing to change: give --description, --visibility, --metadata or property flags');
  const updated = await call<BenefitWire>(target, 'PATCH', path, { body });
  if (opts.json) {
    printJson(updated);
    return;
  }
  info(`Updated ${describe(updated)}.`);
}
