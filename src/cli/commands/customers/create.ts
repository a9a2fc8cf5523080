import type { CustomerWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, createIn, signedIn } from '../../context.js';
import { parseMetadata } from '../../metadata.js';
import { info, printJson, printLine } from '../../output.js';

interface Options {
  email: string;
  name?: string;
  externalId?: string;
  metadata?: string[];
  org?: string;
  quiet?: boolean;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const target = signedIn(globals);
  const body: Record<string, unknown> = { email: opts.email };
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.externalId !== undefined) body.external_id = opts.externalId;
  const metadata = parseMetadata(opts.metadata);
  if (metadata) body.metadata = metadata;
  await createIn(target, body, opts);
  const customer = await call<CustomerWire>(target, 'POST', '/v1/customers/', { body });
  if (opts.json) {
    printJson(customer);
    return;
  }
  printLine(customer.id);
  if (opts.quiet) return;
  info(`Created customer ${customer.email}.`);
}
