import type { LicenseKeyReadWire } from '../../../core/license-keys/schemas.js';
import type { Invocation } from '../../action.js';
import { call, orgFilter, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { pageParams, type Page } from '../../pages.js';

interface Options {
  benefit?: string;
  org?: string;
  allOrgs?: boolean;
  page?: string;
  limit?: string;
  json?: boolean;
}

export async function run({ opts, globals }: Invocation<Options>): Promise<void> {
  const params = new URLSearchParams();
  if (opts.benefit) params.set('benefit_id', opts.benefit);
  pageParams(params, opts);
  const target = signedIn(globals);
  await orgFilter(target, params, opts);
  const query = params.toString() ? `?${params}` : '';
  const page = await call<Page<LicenseKeyReadWire>>(target, 'GET', `/v1/license-keys/${query}`);
  if (opts.json) {
    printJson(page);
    return;
  }
  printTable(
    ['ID', 'KEY', 'STATUS', 'CUSTOMER', 'USAGE', 'EXPIRES'],
    page.items.map((key) => [
      key.id,
      key.display_key,
      key.status,
      key.customer.email ?? key.customer_id,
      key.limit_usage === null ? String(key.usage) : `${key.usage}/${key.limit_usage}`,
      key.expires_at ?? 'never',
    ]),
  );
}
