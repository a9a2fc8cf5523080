import type { CustomerWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseMetadata } from '../../metadata.js';
import { info, printJson } from '../../output.js';
import { customerPath } from './shared.js';

interface Options {
  externalId?: string;
  email?: string;
  name?: string;
  metadata?: string[];
  json?: boolean;
}

export async function run({ args, opts, globals }: Invocation<Options>): Promise<void> {
  const id = typeof args[0] === 'string' ? args[0] : undefined;
  const body: Record<string, unknown> = {};
  if (opts.email !== undefined) body.email = opts.email;
  if (opts.name !== undefined) body.name = opts.name === '' ? null : opts.name;
  const metadata = parseMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  // With an id, --external-id is a value to set; without one it names the customer.
  if (id && opts.externalId !== undefined) body.external_id = opts.externalId;
  if (Object.keys(body).length === 0)
    throw new UsageError('nothing to change: give --email, --name, --metadata or (with an id) --external-id');
  const customer = await call<CustomerWire>(signedIn(globals), 'PATCH', customerPath(id, opts.externalId), { body });
  if (opts.json) {
    printJson(customer);
    return;
  }
  info(`Updated customer ${customer.id}.`);
}
