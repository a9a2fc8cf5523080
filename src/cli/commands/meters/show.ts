import type { MeterWire } from '../../../core/meters/schemas.js';
import type { Invocation } from '../../action.js';
import { call, signedIn } from '../../context.js';
import { printJson, printLine } from '../../output.js';

export function aggregationText(meter: MeterWire): string {
  const aggregation = meter.aggregation;
  return aggregation.func === 'count' ? 'count' : `${aggregation.func}(${aggregation.property})`;
}

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const meter = await call<MeterWire>(signedIn(globals), 'GET', `/v1/meters/${encodeURIComponent(String(args[0]))}`);
  if (opts.json) {
    printJson(meter);
    return;
  }
  const lines: Array<[string, string]> = [
    ['id', meter.id],
    ['name', meter.name],
    ['aggregation', aggregationText(meter)],
    ['filter', JSON.stringify(meter.filter)],
    ['unit', meter.unit],
    [
      'status',
      meter.archived_at ? `archived ${meter.archived_at}` : meter.backfill_pending ? 'counting past events' : 'active',
    ],
    ['organization', meter.organization_id],
    ['created', meter.created_at],
  ];
  for (const [label, value] of lines) printLine(`${`${label}:`.padEnd(14)}${value}`);
}
