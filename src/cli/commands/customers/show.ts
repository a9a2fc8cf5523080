import type { CustomerWire } from '../../../core/customers/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';
import { customerPath } from './shared.js';

export function printCustomer(customer: CustomerWire): void {
  const address = customer.billing_address;
  const lines: Array<[string, string]> = [
    ['id', customer.id],
    ['email', `${customer.email ?? ''}${customer.email_verified ? ' (verified)' : ''}`],
    ['name', customer.name ?? ''],
    ['type', customer.type],
    ['external id', customer.external_id ?? ''],
    [
      'billing address',
      address
        ? [address.line1, address.line2, address.postal_code, address.city, address.state, address.country]
            .filter(Boolean)
            .join(', ')
        : '',
    ],
    ['tax id', customer.tax_id ? `${customer.tax_id[0]} (${customer.tax_id[1]})` : ''],
    [
      'metadata',
      Object.entries(customer.metadata)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(' '),
    ],
    ['organization', customer.organization_id],
    ['created', customer.created_at],
    ['modified', customer.modified_at ?? ''],
  ];
  for (const [label, value] of lines) printLine(`${`${label}:`.padEnd(17)}${value}`);
}

export async function run({ args, opts, globals }: Invocation<{ externalId?: string; json?: boolean }>): Promise<void> {
  const customer = await call<CustomerWire>(signedIn(globals), 'GET', customerPath(args[0], opts.externalId));
  if (opts.json) printJson(customer);
  else printCustomer(customer);
}
