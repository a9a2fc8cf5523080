import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { exportCsv } from '../../export.js';
import { exportQuery, type ExportOptions } from '../../export-options.js';

export async function run({ opts, globals }: Invocation<ExportOptions>): Promise<void> {
  const target = signedIn(globals);
  const query = exportQuery(opts, { after: 'created_after', before: 'created_before' });
  await orgFilter(target, query, opts);
  await exportCsv(target, { exportPath: '/v1/orders/export', listPath: '/v1/orders/', query, output: opts.output });
}
