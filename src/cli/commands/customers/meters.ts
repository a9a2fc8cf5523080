import type { CustomerMeterWire } from '../../../core/meters/schemas.js';
import type { Invocation } from '../../action.js';
import { signedIn } from '../../context.js';
import { printJson, printTable } from '../../output.js';
import { fetchAll } from '../../pages.js';

export async function run({ args, opts, globals }: Invocation<{ json?: boolean }>): Promise<void> {
  const query = new URLSearchParams({ customer_id: String(args[0]) });
  const meters = await fetchAll<CustomerMeterWire>(signedIn(globals), '/v1/customer-meters/', query);
  if (opts.json) {
    printJson(meters);
    return;
  }
  printTable(
    ['METER', 'CONSUMED', 'CREDITED', 'BALANCE', 'METER ID'],
    meters.map((meter) => [
      meter.meter.name,
      String(meter.consumed_units),
      String(meter.credited_units),
      String(meter.balance),
      meter.meter_id,
    ]),
  );
}
