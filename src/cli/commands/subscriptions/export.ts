import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { exportCsv } from '../../export.js';
import { exportQuery, type ExportOptions } from '../../export-options.js';

export async function run({ opts, globals }: Invocation<ExportOptions>): Promise<void> {
  const target = signedIn(globals);
  const query = exportQuery(opts, { after: 'started_after', before: 'started_before' });
  await orgFilter(target, query, opts);
  await exportCsv(target, {
    exportPath: '/v1/subscriptions/export',
    listPath: '/v1/subscriptions/',
    query,
    output: opts.output,
  });
}
