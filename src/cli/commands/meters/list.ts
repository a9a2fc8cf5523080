import type { MeterWire } from '../../../core/meters/schemas.js';
import type { Invocation } from '../../action.js';
import { orgFilter, signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';
import { aggregationText } from './show.js';

export async function run({
  opts,
  globals,
}: Invocation<{ org?: string; allOrgs?: boolean; json?: boolean }>): Promise<void> {
  const target = signedIn(globals);
  const query = new URLSearchParams();
  await orgFilter(target, query, opts);
  const meters = await fetchAll<MeterWire>(target, '/v1/meters/', query);
  if (opts.json) {
    printJson(meters);
    return;
  }
  printTable(
    ['ID', 'NAME', 'AGGREGATION', 'STATUS', 'CREATED'],
    meters.map((meter) => [
      meter.id,
      meter.name,
      aggregationText(meter),
      meter.archived_at ? 'archived' : meter.backfill_pending ? 'counting past events' : 'active',
      meter.created_at,
    ]),
  );
}
