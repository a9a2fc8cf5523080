import type { BenefitGrantWire } from '../../../core/benefit-grants/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson, printTable } from '../../output.js';
import { pageParams, type Page } from '../../pages.js';

interface Options {
  customer?: string;
  benefit?: string;
  granted?: boolean;
  revoked?: boolean;
  org?: string;
  allOrgs?: boolean;
  page?: string;
  limit?: string;
  json?: boolean;
}

function stateOf(grant: BenefitGrantWire): string {
  if (grant.is_granted) return 'granted';
  if (grant.is_revoked) return 'revoked';
  return grant.error ? `failed: ${grant.error.message}` : 'pending';
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  if (opts.granted && opts.revoked) throw new UsageError('--granted and --revoked exclude each other');
  const params = new URLSearchParams();
  if (opts.customer) params.set('customer_id', opts.customer);
  if (opts.benefit) params.set('benefit_id', opts.benefit);
  if (opts.granted) params.set('is_granted', 'true');
  if (opts.revoked) params.set('is_granted', 'false');
  pageParams(params, opts);
  const target = signedIn(globals);
  await orgFilter(target, params, opts);
  const query = params.toString() ? `?${params}` : '';
  const page = await call<Page<BenefitGrantWire>>(target, 'GET', `/v1/benefit-grants/${query}`);
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['ID', 'CUSTOMER', 'BENEFIT', 'TYPE', 'FROM', 'STATE', 'CREATED'],
    page.items.map((grant) => [
      grant.id,
      grant.customer.email ?? grant.customer_id,
      grant.benefit.description,
      grant.benefit.type,
      grant.subscription_id ? `subscription ${grant.subscription_id}` : `order ${grant.order_id}`,
      stateOf(grant),
      grant.created_at,
    ]),
  );
}
