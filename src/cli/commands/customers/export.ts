import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { exportCsv } from '../../export.js';

export async function run({
  opts,
  globals,
}: Invocation<{ org?: string; allOrgs?: boolean; output?: string }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  await orgFilter(target, query, opts);
  await exportCsv(target, {
    exportPath: '/v1/customers/export',
    listPath: '/v1/customers/',
    query,
    output: opts.output,
  });
}
